-- Activity hulls open at the frontier (docs/DATA.md "Open at the frontier"): activity_frontier holds
-- the hour F that is at or after every active hour ingest has seen (it never moves back). A hull whose
-- last active hour is F is open: it is stored with end_hour NULL and has no end mark, so an hour in
-- which a group merely goes on being active writes nothing for it. dim_activity_open lists the open
-- hulls (the rows with end_hour NULL), for the step that closes them when the frontier moves: an index
-- on end_hour instead would make every update of a hull's end a non-HOT one. A database loaded before this
-- migration gets its hulls rebuilt in its transaction (`BACKFILLS` in scripts/lib/migrations.ts,
-- which moved here from 0017: the rebuild is written for this schema).
CREATE TABLE "activity_frontier" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	CONSTRAINT "activity_frontier_single" CHECK ("id" = 1)
);
--> statement-breakpoint
ALTER TABLE "dim_activity" ALTER COLUMN "end_hour" DROP NOT NULL;--> statement-breakpoint
CREATE TABLE "dim_activity_open" (
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"market" text NOT NULL,
	"unit" text NOT NULL,
	"item" text NOT NULL,
	"first_hour" timestamp with time zone NOT NULL,
	CONSTRAINT "dim_activity_open_pk" PRIMARY KEY ("kind", "key", "market", "unit", "item")
);
