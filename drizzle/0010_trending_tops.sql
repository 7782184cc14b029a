-- Trending tops (docs/ENTITIES.md): per entity, market, profile language (or '*') and UTC hour / day,
-- the best occurrence among the entity's mentions first seen in that bucket (unified_score, then
-- embedding_similarity, descending; then url_id). A window's top_article is the best of its buckets'
-- rows, read for the few ranked entities only. Kept exact at ingest (shared/ingest/entity-tops.ts) and
-- rebuilt by `npm run rollups:rebuild [-- --entities-only]`. Keys lead with entity_id, and INCLUDE the
-- ordering columns, so one entity's window is one index-only range read.
CREATE TABLE "entity_hour_tops" (
  "entity_id" uuid NOT NULL,
  "country" text NOT NULL,
  "language" text NOT NULL,
  "hour" timestamp with time zone NOT NULL,
  "url_id" uuid NOT NULL,
  "unified_score" double precision NOT NULL,
  "embedding_similarity" double precision NOT NULL,
  CONSTRAINT "entity_hour_tops_entity_id_country_language_hour_pk" PRIMARY KEY ("entity_id", "country", "language", "hour") INCLUDE ("unified_score", "embedding_similarity", "url_id")
);
--> statement-breakpoint
CREATE TABLE "entity_day_tops" (
  "entity_id" uuid NOT NULL,
  "country" text NOT NULL,
  "language" text NOT NULL,
  "day" date NOT NULL,
  "url_id" uuid NOT NULL,
  "unified_score" double precision NOT NULL,
  "embedding_similarity" double precision NOT NULL,
  CONSTRAINT "entity_day_tops_entity_id_country_language_day_pk" PRIMARY KEY ("entity_id", "country", "language", "day") INCLUDE ("unified_score", "embedding_similarity", "url_id")
);
