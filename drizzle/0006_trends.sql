-- Daily article counts per trend: the UTC day of each assigned article's first_seen_at. Every
-- derived trend number (peak_date, daily_counts_180d, features) reads this table (docs/TRENDS.md);
-- ingest keeps it exact (shared/ingest/write-trends.ts). The backfill below builds it once from the
-- assignments already stored, so existing databases (the bench set) need no reload.
CREATE TABLE "trend_days" (
	"trend_id" uuid NOT NULL,
	"day" date NOT NULL,
	"articles" integer NOT NULL,
	CONSTRAINT "trend_days_trend_id_day_pk" PRIMARY KEY("trend_id","day") INCLUDE ("articles")
);
--> statement-breakpoint
ALTER TABLE "trend_days" ADD CONSTRAINT "trend_days_trend_id_trends_id_fk" FOREIGN KEY ("trend_id") REFERENCES "public"."trends"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
INSERT INTO "trend_days" ("trend_id", "day", "articles")
SELECT ta.trend_id, (a.first_seen_at AT TIME ZONE 'UTC')::date, count(*)::int
FROM "trend_articles" ta JOIN "articles" a ON a.id = ta.url_id
GROUP BY 1, 2;
--> statement-breakpoint
-- peak_date was an ingested constant; from now on it is the busiest day (latest on ties).
UPDATE "trends" t SET "peak_date" = p.day
FROM (SELECT DISTINCT ON (trend_id) trend_id, day FROM "trend_days" ORDER BY trend_id, articles DESC, day DESC) p
WHERE t.id = p.trend_id;
--> statement-breakpoint
UPDATE "trends" SET "peak_date" = NULL WHERE "article_count" = 0;
--> statement-breakpoint
-- Articles first seen less than 48 hours after the trend's first one (the first_48h_share feature),
-- kept at ingest so the detail reads one number instead of every assigned article.
ALTER TABLE "trends" ADD COLUMN "first_48h_articles" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
UPDATE "trends" t SET "first_48h_articles" = (
  SELECT count(*)::int FROM "trend_articles" ta JOIN "articles" a ON a.id = ta.url_id
  WHERE ta.trend_id = t.id AND a.first_seen_at < t.first_seen_at + interval '48 hours')
WHERE t.article_count > 0;
--> statement-breakpoint
-- Features are computed when read (shared/trends/features.ts); the ingested constants go. The column
-- stays (unused) so that writers of older builds sharing a database keep working.
UPDATE "trends" SET "features" = NULL;
--> statement-breakpoint
CREATE INDEX "trends_first_seen_idx" ON "trends" USING btree ("first_seen_at");
--> statement-breakpoint
CREATE INDEX "trends_article_count_idx" ON "trends" USING btree ("article_count");
--> statement-breakpoint
CREATE INDEX "hierarchy_nodes_level_idx" ON "hierarchy_nodes" USING btree ("level");
