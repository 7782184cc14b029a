-- The activity hulls are also kept per market (country) for the category kind (docs/DATA.md
-- "Distinct counts"): category analytics for one market count its publications and publishers from
-- them, as the every-market scope does from the `*` rows, instead of walking the market's spans.
-- Existing rows are the every-market hulls. The market rows of a database loaded before this
-- migration are built by 0023's backfill, which rebuilds the activity hulls whole from url_dimensions
-- and url_spans (`BACKFILLS` in scripts/lib/migrations.ts; the same rebuild took 217 s on the bench set).
ALTER TABLE "dim_activity" ADD COLUMN "market" text NOT NULL DEFAULT '*';--> statement-breakpoint
ALTER TABLE "dim_activity" ALTER COLUMN "market" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "dim_activity" DROP CONSTRAINT "dim_activity_kind_key_unit_item_pk";--> statement-breakpoint
ALTER TABLE "dim_activity" ADD CONSTRAINT "dim_activity_pk" PRIMARY KEY ("kind", "key", "market", "unit", "item");--> statement-breakpoint
ALTER TABLE "dim_activity_gaps" ADD COLUMN "market" text NOT NULL DEFAULT '*';--> statement-breakpoint
ALTER TABLE "dim_activity_gaps" ALTER COLUMN "market" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "dim_activity_gaps" DROP CONSTRAINT "dim_activity_gaps_kind_key_unit_item_gap_start_pk";--> statement-breakpoint
ALTER TABLE "dim_activity_gaps" ADD CONSTRAINT "dim_activity_gaps_pk" PRIMARY KEY ("kind", "key", "market", "unit", "item", "gap_start");--> statement-breakpoint
DROP INDEX "dim_activity_gaps_end_idx";--> statement-breakpoint
CREATE INDEX "dim_activity_gaps_end_idx" ON "dim_activity_gaps" USING btree ("kind", "key", "market", "unit", "gap_end");--> statement-breakpoint
ALTER TABLE "dim_activity_hours" ADD COLUMN "market" text NOT NULL DEFAULT '*';--> statement-breakpoint
ALTER TABLE "dim_activity_hours" ALTER COLUMN "market" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "dim_activity_hours" DROP CONSTRAINT "dim_activity_hours_kind_key_unit_hour_pk";--> statement-breakpoint
ALTER TABLE "dim_activity_hours" ADD CONSTRAINT "dim_activity_hours_pk" PRIMARY KEY ("kind", "key", "market", "unit", "hour") INCLUDE ("starts", "ends");--> statement-breakpoint
ALTER TABLE "dim_activity_days" ADD COLUMN "market" text NOT NULL DEFAULT '*';--> statement-breakpoint
ALTER TABLE "dim_activity_days" ALTER COLUMN "market" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "dim_activity_days" DROP CONSTRAINT "dim_activity_days_kind_key_unit_day_pk";--> statement-breakpoint
ALTER TABLE "dim_activity_days" ADD CONSTRAINT "dim_activity_days_pk" PRIMARY KEY ("kind", "key", "market", "unit", "day") INCLUDE ("starts", "ends");
