-- Hull marks are read as sums over index ranges (shared/rollups/activity.ts): with the counts in
-- the primary key's index those ranges are index-only scans, not one heap fetch per row.
ALTER TABLE "dim_activity_hours" DROP CONSTRAINT "dim_activity_hours_kind_key_unit_hour_pk";--> statement-breakpoint
ALTER TABLE "dim_activity_hours" ADD CONSTRAINT "dim_activity_hours_kind_key_unit_hour_pk" PRIMARY KEY ("kind","key","unit","hour") INCLUDE ("starts","ends");--> statement-breakpoint
ALTER TABLE "dim_activity_days" DROP CONSTRAINT "dim_activity_days_kind_key_unit_day_pk";--> statement-breakpoint
ALTER TABLE "dim_activity_days" ADD CONSTRAINT "dim_activity_days_kind_key_unit_day_pk" PRIMARY KEY ("kind","key","unit","day") INCLUDE ("starts","ends");
