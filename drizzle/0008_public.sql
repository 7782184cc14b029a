-- Public profile check: a domain's newest publications are one index range read (newest first, id
-- breaks ties), for one domain or for the 100 of a bulk check in one statement.
CREATE INDEX IF NOT EXISTS "articles_domain_recent_idx" ON "articles" USING btree ("domain", "first_seen_at" DESC, "id");
