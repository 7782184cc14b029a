-- Feed cursor snapshots (docs/DATA.md "Feed snapshots"): cursor pages read every
-- sort value as of the version their iteration began at. profile_windows carries every sort value
-- (the time sorts copied from url_profiles) and the version it was written at; the versions it
-- replaces go to profile_windows_history with the version that replaced them, kept 24 h (cursor
-- lifetime) and pruned by the jobs cron. feed_versions counts writes in commit order.
ALTER TABLE "profile_windows" ADD COLUMN "first_seen" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "profile_windows" ADD COLUMN "last_seen" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "profile_windows" ADD COLUMN "avg_position" real;--> statement-breakpoint
ALTER TABLE "profile_windows" ADD COLUMN "valid_from" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "profile_windows" w SET "first_seen" = p."first_seen", "last_seen" = p."last_seen", "avg_position" = p."avg_position"
  FROM "url_profiles" p WHERE (p."url_id", p."country", p."language") = (w."url_id", w."country", w."language");--> statement-breakpoint
CREATE INDEX "profile_windows_first_seen_idx" ON "profile_windows" USING btree ("first_seen","url_id","country","language");--> statement-breakpoint
CREATE INDEX "profile_windows_last_seen_idx" ON "profile_windows" USING btree ("last_seen","url_id","country","language");--> statement-breakpoint
CREATE INDEX "profile_windows_avg_position_idx" ON "profile_windows" USING btree ("avg_position","url_id","country","language");--> statement-breakpoint
CREATE TABLE "feed_versions" (
	"id" integer PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL,
	CONSTRAINT "feed_versions_single" CHECK ("id" = 1)
);
--> statement-breakpoint
INSERT INTO "feed_versions" ("id", "version") VALUES (1, 1);--> statement-breakpoint
CREATE TABLE "profile_windows_history" (
	"url_id" uuid NOT NULL,
	"country" text NOT NULL,
	"language" text NOT NULL,
	"imp_1h" bigint NOT NULL,
	"imp_24h" bigint NOT NULL,
	"imp_7d" bigint NOT NULL,
	"imp_30d" bigint NOT NULL,
	"derived" bigint NOT NULL,
	"first_seen" timestamp with time zone,
	"last_seen" timestamp with time zone,
	"avg_position" real,
	"valid_from" bigint NOT NULL,
	"valid_to" bigint NOT NULL,
	"replaced_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "profile_windows_history_1h_idx" ON "profile_windows_history" USING btree ("imp_1h","url_id","country","language") INCLUDE ("valid_from","valid_to");--> statement-breakpoint
CREATE INDEX "profile_windows_history_24h_idx" ON "profile_windows_history" USING btree ("imp_24h","url_id","country","language") INCLUDE ("valid_from","valid_to");--> statement-breakpoint
CREATE INDEX "profile_windows_history_7d_idx" ON "profile_windows_history" USING btree ("imp_7d","url_id","country","language") INCLUDE ("valid_from","valid_to");--> statement-breakpoint
CREATE INDEX "profile_windows_history_30d_idx" ON "profile_windows_history" USING btree ("imp_30d","url_id","country","language") INCLUDE ("valid_from","valid_to");--> statement-breakpoint
CREATE INDEX "profile_windows_history_derived_idx" ON "profile_windows_history" USING btree ("derived","url_id","country","language") INCLUDE ("valid_from","valid_to");--> statement-breakpoint
CREATE INDEX "profile_windows_history_first_seen_idx" ON "profile_windows_history" USING btree ("first_seen","url_id","country","language") INCLUDE ("valid_from","valid_to");--> statement-breakpoint
CREATE INDEX "profile_windows_history_last_seen_idx" ON "profile_windows_history" USING btree ("last_seen","url_id","country","language") INCLUDE ("valid_from","valid_to");--> statement-breakpoint
CREATE INDEX "profile_windows_history_avg_position_idx" ON "profile_windows_history" USING btree ("avg_position","url_id","country","language") INCLUDE ("valid_from","valid_to");--> statement-breakpoint
CREATE INDEX "profile_windows_history_replaced_idx" ON "profile_windows_history" USING btree ("replaced_at");
