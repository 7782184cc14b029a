-- The ingest ledger (docs/INGEST.md "The drop"): one row per object version the crawler dropped into
-- the bucket (key + etag: a new version of a key is a new run), advanced in the same transaction as
-- each chunk's batch, so a redelivered notification, a crash or a timeout resumes after the last
-- committed chunk and never applies a line twice.
CREATE TABLE "ingest_runs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	"object_key" text NOT NULL,
	"etag" text NOT NULL,
	"size" bigint NOT NULL,
	-- R2's eventTime: the order in which runs apply.
	"event_time" timestamp with time zone NOT NULL,
	"state" text DEFAULT 'queued' NOT NULL,
	"format" text,
	-- Physical lines of the object committed (their records applied, their bad lines stored).
	"lines_done" integer DEFAULT 0 NOT NULL,
	-- Where a plain file's next read starts (a range read), and the line count at that byte.
	"resume_byte" bigint DEFAULT 0 NOT NULL,
	"resume_line" integer DEFAULT 0 NOT NULL,
	"read" integer DEFAULT 0 NOT NULL,
	"loaded" integer DEFAULT 0 NOT NULL,
	"skipped" integer DEFAULT 0 NOT NULL,
	"changed" bigint DEFAULT 0 NOT NULL,
	"chunks" integer DEFAULT 0 NOT NULL,
	-- The newest observation hour committed: it moves the watermark when the run ends, as the CLI's does.
	"newest_hour" timestamp with time zone,
	-- Tables the run changed, ANALYZEd when it ends (as the CLI's run does).
	"changed_tables" text[] DEFAULT '{}' NOT NULL,
	"reason" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	-- The last step of the run (registration, a start, a chunk): a pending run that has not moved for long is stalled.
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ingest_runs_version" UNIQUE ("object_key", "etag"),
	CONSTRAINT "ingest_runs_state" CHECK ("state" IN ('queued', 'running', 'done', 'failed'))
);
--> statement-breakpoint
CREATE INDEX "ingest_runs_pending" ON "ingest_runs" ("event_time", "id") WHERE "state" IN ('queued', 'running');
--> statement-breakpoint
CREATE INDEX "ingest_runs_recent" ON "ingest_runs" ("created_at");
--> statement-breakpoint
-- The bad lines of a run (the CLI's rule: skipped with line number and reason, the good ones land).
CREATE TABLE "ingest_run_errors" (
	"run_id" bigint NOT NULL REFERENCES "ingest_runs" ("id") ON DELETE CASCADE,
	"line" integer NOT NULL,
	"reason" text NOT NULL,
	PRIMARY KEY ("run_id", "line")
);
