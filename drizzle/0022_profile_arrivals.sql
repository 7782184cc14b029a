-- The order in which profiles arrive, for GET /v2/live/stream (docs/FEED.md "Streams"): the feed
-- version of the transaction that first wrote a profile's windows row. feed_versions hands versions
-- out in commit order (its row lock is held until commit), so a reader that sees version S has seen
-- every profile with seen_version <= S and will never see another one: a stream resumes after
-- (seen_version, url_id, country, language) and loses nothing. Existing rows arrived before any stream: 0.
ALTER TABLE "profile_windows" ADD COLUMN "seen_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "profile_windows_seen_idx" ON "profile_windows" USING btree ("seen_version","url_id","country","language");
