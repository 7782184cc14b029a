-- A bulk load's observation lines, as its batches append them (docs/INGEST.md "Bulk loads",
-- shared/ingest/staged-observations.ts): no key and no index, so a batch's hours cost an append
-- instead of an upsert per row. The load's end merges them into observations in one set-based step
-- (the last line of a key wins: the highest seq) and empties the table; every ingest run merges what
-- a load that died midway left here before anything else.
CREATE TABLE "observations_staged" (
	"seq" bigint GENERATED ALWAYS AS IDENTITY (CACHE 1000),
	"url_id" uuid NOT NULL,
	"country" text NOT NULL,
	"language" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"impressions" integer NOT NULL,
	"position" real NOT NULL
);
