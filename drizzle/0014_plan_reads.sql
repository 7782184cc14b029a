-- Plan reads (docs/DATA.md "Plan categories and article reach"): what category-limited plans and
-- the articles list read instead of checking every row. All three tables are kept exact at ingest
-- (shared/ingest/plan-reads.ts, entity-rollups.ts) and rebuilt by `npm run rollups:rebuild`; this
-- migration fills them for a database loaded before it.
--
-- category_tops: the plan-visible top levels of category paths, the rule plans always used
-- ('/' || split_part(name, '/', 2)), distinct and in byte order so that equal sets are equal arrays.
CREATE FUNCTION category_tops(names text[]) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT t ORDER BY t), '{}')
  FROM (SELECT ('/' || split_part(n, '/', 2)) COLLATE "C" AS t FROM unnest(names) AS n) s
$$;
--> statement-breakpoint
-- The countries of a set of 'CC:ll' markets, distinct and in byte order.
CREATE FUNCTION market_countries(markets text[]) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT c ORDER BY c), '{}')
  FROM (SELECT split_part(m, ':', 1) COLLATE "C" AS c FROM unnest(markets) AS m) s
$$;
--> statement-breakpoint
-- One row per article with at least one category: its top levels. A plan sees an article when
-- top_categories && the plan's top levels (one index probe, no per-category string work).
CREATE TABLE "article_tops" (
  "url_id" uuid PRIMARY KEY NOT NULL REFERENCES "articles"("id") ON DELETE CASCADE,
  "top_categories" text[] NOT NULL
);
--> statement-breakpoint
CREATE INDEX "article_tops_categories_idx" ON "article_tops" USING gin ("top_categories");
--> statement-breakpoint
INSERT INTO "article_tops" ("url_id", "top_categories")
SELECT "url_id", category_tops(array_agg("name")) FROM "article_categories" GROUP BY "url_id";
--> statement-breakpoint
-- How many articles reached exactly these markets ('CC:ll' of their profiles, byte order) with exactly
-- these top categories ('{}': none). The number of articles in any scope (countries, a language, a
-- plan) is a sum over the few thousand distinct combinations, never a pass over the articles.
CREATE TABLE "article_reach" (
  "markets" text[] NOT NULL,
  "countries" text[] NOT NULL,
  "top_categories" text[] NOT NULL,
  "articles" integer NOT NULL,
  CONSTRAINT "article_reach_pk" PRIMARY KEY ("markets", "top_categories")
);
--> statement-breakpoint
INSERT INTO "article_reach" ("markets", "countries", "top_categories", "articles")
SELECT markets, market_countries(markets), top_categories, count(*)::int FROM (
  SELECT p."url_id", array_agg((p."country" || ':' || p."language") COLLATE "C" ORDER BY (p."country" || ':' || p."language") COLLATE "C") AS markets,
         coalesce(t."top_categories", '{}') AS top_categories
  FROM "url_profiles" p LEFT JOIN "article_tops" t ON t."url_id" = p."url_id"
  GROUP BY p."url_id", t."top_categories") s
GROUP BY markets, top_categories;
--> statement-breakpoint
-- entity_best gains the rows of country '+': each entity's best occurrence among the articles seen in
-- some market, which a key whose countries hold every market with data reads instead of the best of
-- one row per country (a sort of every row of every country).
INSERT INTO "entity_best" ("entity_id", "country", "url_id", "unified_score", "embedding_similarity", "source")
SELECT DISTINCT ON (l."entity_id") l."entity_id", '+', l."url_id", l."unified_score", l."embedding_similarity", l."source"
FROM "article_entities" l WHERE EXISTS (SELECT 1 FROM "url_profiles" p WHERE p."url_id" = l."url_id")
ORDER BY l."entity_id", l."unified_score" DESC, l."embedding_similarity" DESC, l."url_id";
--> statement-breakpoint
-- entity_best per top-level category: each entity's best occurrence among the articles under one top
-- level, seen in one market (or in any, '+'; or over all, '*'). A plan's best is the best of its categories' rows.
CREATE TABLE "entity_category_best" (
  "entity_id" uuid NOT NULL,
  "country" text NOT NULL,
  "category" text NOT NULL,
  "url_id" uuid NOT NULL,
  "unified_score" double precision NOT NULL,
  "embedding_similarity" double precision NOT NULL,
  "source" text NOT NULL,
  CONSTRAINT "entity_category_best_pk" PRIMARY KEY ("entity_id", "country", "category")
);
--> statement-breakpoint
CREATE INDEX "entity_category_best_scope_idx" ON "entity_category_best" ("country", "category", "unified_score" DESC, "entity_id");
--> statement-breakpoint
CREATE INDEX "entity_category_best_url_idx" ON "entity_category_best" ("url_id");
--> statement-breakpoint
INSERT INTO "entity_category_best" ("entity_id", "country", "category", "url_id", "unified_score", "embedding_similarity", "source")
SELECT DISTINCT ON (entity_id, country, category) entity_id, country, category, url_id, unified_score, embedding_similarity, source FROM (
  SELECT l."entity_id", '*'::text AS country, c.category, l."url_id", l."unified_score", l."embedding_similarity", l."source"
  FROM "article_entities" l JOIN "article_tops" t ON t."url_id" = l."url_id" CROSS JOIN LATERAL unnest(t."top_categories") AS c(category)
  UNION ALL
  SELECT l."entity_id", '+', c.category, l."url_id", l."unified_score", l."embedding_similarity", l."source"
  FROM "article_entities" l JOIN "article_tops" t ON t."url_id" = l."url_id" CROSS JOIN LATERAL unnest(t."top_categories") AS c(category)
  WHERE EXISTS (SELECT 1 FROM "url_profiles" p WHERE p."url_id" = l."url_id")
  UNION ALL
  SELECT l."entity_id", p."country", c.category, l."url_id", l."unified_score", l."embedding_similarity", l."source"
  FROM "article_entities" l JOIN "article_tops" t ON t."url_id" = l."url_id" CROSS JOIN LATERAL unnest(t."top_categories") AS c(category)
  JOIN (SELECT DISTINCT "url_id", "country" FROM "url_profiles") p ON p."url_id" = l."url_id") s
ORDER BY entity_id, country, category, unified_score DESC, embedding_similarity DESC, url_id;
--> statement-breakpoint
-- The articles list walks url_profiles in first_seen order through the scope's markets and language:
-- which index is cheaper depends on how many profiles the pair holds, and country and language are
-- correlated (en in JP is rare), which the planner only knows from joint statistics.
CREATE STATISTICS "url_profiles_market_stats" (mcv) ON "country", "language" FROM "url_profiles";
--> statement-breakpoint
ANALYZE "url_profiles", "article_tops", "article_reach", "entity_category_best";
