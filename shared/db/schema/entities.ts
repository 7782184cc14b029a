// Entity read models kept exact at ingest (drizzle/0007_entities.sql, docs/ENTITIES.md).
import { sql } from 'drizzle-orm';
import { date, doublePrecision, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** Market code of the rows that cover every market (entity_best) or every language (entity_hours). */
export const ENTITY_ALL = '*';

/**
 * Market code of the entity_best (and entity_category_best) rows over the articles seen in some market:
 * what a key whose countries hold every market with data sees (drizzle/0014_plan_reads.sql).
 */
export const ENTITY_SEEN = '+';

/**
 * Each entity's highest-scoring occurrence among the articles seen in one market (`country`), among
 * the articles seen in any market (`country = '+'`), and over all articles (`country = '*'`): the
 * list entry of GET /v1/entities.
 */
export const entityBest = pgTable(
  'entity_best',
  {
    entityId: uuid('entity_id').notNull(),
    country: text('country').notNull(),
    urlId: uuid('url_id').notNull(),
    unifiedScore: doublePrecision('unified_score').notNull(),
    embeddingSimilarity: doublePrecision('embedding_similarity').notNull(),
    source: text('source').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.entityId, t.country] }),
    index('entity_best_country_score_idx').on(t.country, sql`${t.unifiedScore} DESC`, t.entityId),
    index('entity_best_url_idx').on(t.urlId),
  ],
);

/**
 * entity_best per top-level category of the articles (drizzle/0014_plan_reads.sql): a category-limited
 * plan's best occurrence is the best of its categories' rows.
 */
export const entityCategoryBest = pgTable(
  'entity_category_best',
  {
    entityId: uuid('entity_id').notNull(),
    country: text('country').notNull(),
    /** A top level, e.g. `/Sports`. */
    category: text('category').notNull(),
    urlId: uuid('url_id').notNull(),
    unifiedScore: doublePrecision('unified_score').notNull(),
    embeddingSimilarity: doublePrecision('embedding_similarity').notNull(),
    source: text('source').notNull(),
  },
  (t) => [
    primaryKey({ name: 'entity_category_best_pk', columns: [t.entityId, t.country, t.category] }),
    index('entity_category_best_scope_idx').on(t.country, t.category, sql`${t.unifiedScore} DESC`, t.entityId),
    index('entity_category_best_url_idx').on(t.urlId),
  ],
);

/**
 * Trending roll-up: per market country, profile language (or '*' for every language), UTC hour
 * and entity, the profiles of the entity's articles first seen in that hour (`mentions`) and the
 * articles whose first appearance in the country (or country and language) falls in that hour.
 */
export const entityHours = pgTable(
  'entity_hours',
  {
    country: text('country').notNull(),
    language: text('language').notNull(),
    hour: timestamp('hour', { withTimezone: true, mode: 'date' }).notNull(),
    entityId: uuid('entity_id').notNull(),
    mentions: integer('mentions').notNull(),
    articles: integer('articles').notNull(),
  },
  (t) => [primaryKey({ columns: [t.country, t.language, t.hour, t.entityId] })],
);

/** entity_hours per UTC day: windows read their whole days here and only the edge hours above. */
export const entityDays = pgTable(
  'entity_days',
  {
    country: text('country').notNull(),
    language: text('language').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    entityId: uuid('entity_id').notNull(),
    mentions: integer('mentions').notNull(),
    articles: integer('articles').notNull(),
  },
  (t) => [primaryKey({ columns: [t.country, t.language, t.day, t.entityId] })],
);

/**
 * Trending tops (drizzle/0010_trending_tops.sql): per entity, market, language (or '*') and UTC hour,
 * the best occurrence (unified_score, embedding_similarity descending, then url_id) among the
 * entity's mentions first seen in that hour. A window's top_article is the best of its buckets.
 */
export const entityHourTops = pgTable(
  'entity_hour_tops',
  {
    entityId: uuid('entity_id').notNull(),
    country: text('country').notNull(),
    language: text('language').notNull(),
    hour: timestamp('hour', { withTimezone: true, mode: 'date' }).notNull(),
    urlId: uuid('url_id').notNull(),
    unifiedScore: doublePrecision('unified_score').notNull(),
    embeddingSimilarity: doublePrecision('embedding_similarity').notNull(),
  },
  (t) => [primaryKey({ columns: [t.entityId, t.country, t.language, t.hour] })],
);

/** entity_hour_tops per UTC day (the best of the day's hours): whole days of a window read here. */
export const entityDayTops = pgTable(
  'entity_day_tops',
  {
    entityId: uuid('entity_id').notNull(),
    country: text('country').notNull(),
    language: text('language').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    urlId: uuid('url_id').notNull(),
    unifiedScore: doublePrecision('unified_score').notNull(),
    embeddingSimilarity: doublePrecision('embedding_similarity').notNull(),
  },
  (t) => [primaryKey({ columns: [t.entityId, t.country, t.language, t.day] })],
);
