-- Entities (docs/ENTITIES.md): trigram search over names, each entity's best occurrence per market,
-- and the hourly trending roll-up. Both tables are kept exact at ingest (shared/ingest/entity-rollups.ts)
-- and rebuilt by `npm run rollups:rebuild`. pg_trgm: a contrib extension PGlite loads at start.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX "entities_name_trgm_idx" ON "entities" USING gin (search_norm("name") gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "article_entities_entity_score_idx" ON "article_entities" ("entity_id", "unified_score" DESC, "embedding_similarity" DESC, "url_id");
--> statement-breakpoint
CREATE TABLE "entity_best" (
  "entity_id" uuid NOT NULL,
  "country" text NOT NULL,
  "url_id" uuid NOT NULL,
  "unified_score" double precision NOT NULL,
  "embedding_similarity" double precision NOT NULL,
  "source" text NOT NULL,
  CONSTRAINT "entity_best_entity_id_country_pk" PRIMARY KEY ("entity_id", "country")
);
--> statement-breakpoint
CREATE INDEX "entity_best_country_score_idx" ON "entity_best" ("country", "unified_score" DESC, "entity_id");
--> statement-breakpoint
CREATE INDEX "entity_best_url_idx" ON "entity_best" ("url_id");
--> statement-breakpoint
CREATE TABLE "entity_hours" (
  "country" text NOT NULL,
  "language" text NOT NULL,
  "hour" timestamp with time zone NOT NULL,
  "entity_id" uuid NOT NULL,
  "mentions" integer NOT NULL,
  "articles" integer NOT NULL,
  CONSTRAINT "entity_hours_country_language_hour_entity_id_pk" PRIMARY KEY ("country", "language", "hour", "entity_id") INCLUDE ("mentions", "articles")
);
--> statement-breakpoint
CREATE TABLE "entity_days" (
  "country" text NOT NULL,
  "language" text NOT NULL,
  "day" date NOT NULL,
  "entity_id" uuid NOT NULL,
  "mentions" integer NOT NULL,
  "articles" integer NOT NULL,
  CONSTRAINT "entity_days_country_language_day_entity_id_pk" PRIMARY KEY ("country", "language", "day", "entity_id") INCLUDE ("mentions", "articles")
);
