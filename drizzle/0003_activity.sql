CREATE TABLE "dim_activity" (
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"unit" text NOT NULL,
	"item" text NOT NULL,
	"first_hour" timestamp with time zone NOT NULL,
	"end_hour" timestamp with time zone NOT NULL,
	CONSTRAINT "dim_activity_kind_key_unit_item_pk" PRIMARY KEY("kind","key","unit","item")
);
--> statement-breakpoint
CREATE TABLE "dim_activity_days" (
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"unit" text NOT NULL,
	"day" date NOT NULL,
	"starts" integer NOT NULL,
	"ends" integer NOT NULL,
	CONSTRAINT "dim_activity_days_kind_key_unit_day_pk" PRIMARY KEY("kind","key","unit","day")
);
--> statement-breakpoint
CREATE TABLE "dim_activity_gaps" (
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"unit" text NOT NULL,
	"item" text NOT NULL,
	"gap_start" timestamp with time zone NOT NULL,
	"gap_end" timestamp with time zone NOT NULL,
	CONSTRAINT "dim_activity_gaps_kind_key_unit_item_gap_start_pk" PRIMARY KEY("kind","key","unit","item","gap_start")
);
--> statement-breakpoint
CREATE TABLE "dim_activity_hours" (
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"unit" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"starts" integer NOT NULL,
	"ends" integer NOT NULL,
	CONSTRAINT "dim_activity_hours_kind_key_unit_hour_pk" PRIMARY KEY("kind","key","unit","hour")
);
--> statement-breakpoint
CREATE INDEX "dim_activity_gaps_end_idx" ON "dim_activity_gaps" USING btree ("kind","key","unit","gap_end");