-- dim_hours partitioned by UTC day (docs/DATA.md "Series by day", issue 43 step 5): an hour's upsert
-- meets the small index of its day's partition, which stays in memory, instead of one index over
-- every hour of every key, whose leaves an hour's ~20k new rows hit all over. Readers are unchanged:
-- the parent answers as the table did, and a window's bounds prune the partitions it does not touch.
-- dim_hours_days(days) creates the partitions of the days given that are missing: ingest calls it for
-- the days of a batch's changed hours before it writes them, the rebuild for every day of
-- observations, so every day with an observation has its partition. Each is created on its own and
-- then attached (ATTACH takes a lock that lets readers and writers of dim_hours go on; a CREATE ...
-- PARTITION OF would hold them off until the batch commits).
CREATE OR REPLACE FUNCTION dim_hours_days(days date[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  d date;
  part text;
BEGIN
  FOREACH d IN ARRAY coalesce(days, '{}'::date[]) LOOP
    part := 'dim_hours_' || to_char(d, 'YYYYMMDD');
    IF to_regclass(part) IS NULL THEN
      EXECUTE format('CREATE TABLE %I (LIKE dim_hours)', part);
      EXECUTE format('ALTER TABLE dim_hours ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part,
        d::timestamp AT TIME ZONE 'UTC', (d + 1)::timestamp AT TIME ZONE 'UTC');
    END IF;
  END LOOP;
END $$;--> statement-breakpoint
ALTER TABLE "dim_hours" RENAME TO "dim_hours_unpartitioned";--> statement-breakpoint
ALTER TABLE "dim_hours_unpartitioned" RENAME CONSTRAINT "dim_hours_pk" TO "dim_hours_unpartitioned_pk";--> statement-breakpoint
CREATE TABLE "dim_hours" (
	"key_id" integer NOT NULL,
	"country" text COLLATE "C" NOT NULL,
	"language" text COLLATE "C" NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"impressions" bigint NOT NULL,
	"position_sum" double precision NOT NULL,
	CONSTRAINT "dim_hours_pk" PRIMARY KEY ("key_id", "country", "language", "hour")
) PARTITION BY RANGE ("hour");--> statement-breakpoint
-- Every day from the first observation's to the last one's (each row of dim_hours is an hour of one).
SELECT dim_hours_days(array(
  SELECT generate_series((min(hour) AT TIME ZONE 'UTC')::date, (max(hour) AT TIME ZONE 'UTC')::date, interval '1 day')::date FROM observations));--> statement-breakpoint
INSERT INTO "dim_hours" SELECT * FROM "dim_hours_unpartitioned";--> statement-breakpoint
DROP TABLE "dim_hours_unpartitioned";--> statement-breakpoint
ANALYZE "dim_hours";
