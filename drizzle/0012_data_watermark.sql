-- Data-As-Of (docs/DATA.md "Freshness"): the newest UTC hour whose observations are complete. One row,
-- moved forward (never back) by each ingest run that commits observations: to the run's newest hour,
-- but never past the hour before the run's clock (an hour still under way is not complete).
CREATE TABLE "data_watermark" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"complete_hour" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "data_watermark_single" CHECK ("id" = 1)
);
--> statement-breakpoint
-- A database loaded before this table: what it holds is complete up to its newest hour before this one.
INSERT INTO "data_watermark" ("id", "complete_hour")
SELECT 1, CASE WHEN max("hour") IS NOT NULL
  THEN least(max("hour"), date_trunc('hour', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 hour') END
FROM "observations";
