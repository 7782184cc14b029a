// Trends with lifecycle, their article assignments, the genealogy graph and the
// theme (level 2) -> topic (level 1) -> trend hierarchy.
import { sql } from 'drizzle-orm';
import {
  check,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  smallint,
  text,
  timestamp,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';
import { articles } from './content';
import { SEMANTIC_TYPES, STRUCTURAL_TYPES, TREND_ROLES, TREND_STATES } from '../values';

export { SEMANTIC_TYPES, STRUCTURAL_TYPES, TREND_ROLES, TREND_STATES };

const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export type TrendState = (typeof TREND_STATES)[number];

export const hierarchyNodes = pgTable(
  'hierarchy_nodes',
  {
    id: uuid('id').primaryKey(),
    /** 2 = theme, 1 = topic. */
    level: integer('level').notNull(),
    label: text('label').notNull(),
    summary: text('summary').notNull().default(''),
    labelEn: text('label_en').notNull(),
    labelRu: text('label_ru').notNull(),
    labelLocal: text('label_local'),
    labelLocalLang: text('label_local_lang'),
    parentId: uuid('parent_id'),
    state: text('state'),
  },
  (t) => [index('hierarchy_nodes_parent_idx').on(t.parentId), index('hierarchy_nodes_level_idx').on(t.level)],
);

export const trends = pgTable(
  'trends',
  {
    id: uuid('id').primaryKey(),
    label: text('label').notNull(),
    summary: text('summary').notNull().default(''),
    labelEn: text('label_en').notNull(),
    labelRu: text('label_ru').notNull(),
    labelLocal: text('label_local'),
    labelLocalLang: text('label_local_lang'),
    state: text('state').$type<TrendState>().notNull(),
    structuralType: text('structural_type').notNull(),
    /** Null until classified (`unclassified` in filters). */
    semanticType: text('semantic_type'),
    semanticTypeConfidence: real('semantic_type_confidence').notNull().default(0),
    topicId: uuid('topic_id').references(() => hierarchyNodes.id),
    primaryCountry: text('primary_country').notNull(),
    countryScope: text('country_scope').array().notNull().default(sql`'{}'::text[]`),
    keyEntities: text('key_entities').array().notNull().default(sql`'{}'::text[]`),
    keyTopics: text('key_topics').array().notNull().default(sql`'{}'::text[]`),
    /** Busiest UTC day of the trend's articles (latest on ties); maintained at ingest from trend_days. */
    peakDate: date('peak_date', { mode: 'string' }),
    expectedNextPeak: date('expected_next_peak', { mode: 'string' }),
    /** Unused since 0006_trends (features are computed when read); kept for older writers. */
    features: jsonb('features'),
    firstSeenAt: tstz('first_seen_at'),
    lastArticleAt: tstz('last_article_at'),
    articleCount: integer('article_count').notNull().default(0),
    /** Articles first seen < 48 h after the trend's first article (first_48h_share); kept at ingest. */
    first48hArticles: integer('first_48h_articles').notNull().default(0),
    createdAt: tstz('created_at').notNull().defaultNow(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('trends_topic_idx').on(t.topicId),
    index('trends_last_article_idx').on(t.lastArticleAt),
    index('trends_first_seen_idx').on(t.firstSeenAt),
    index('trends_article_count_idx').on(t.articleCount),
    index('trends_country_scope_idx').using('gin', t.countryScope),
  ],
);

export const trendArticles = pgTable(
  'trend_articles',
  {
    trendId: uuid('trend_id')
      .notNull()
      .references(() => trends.id, { onDelete: 'cascade' }),
    urlId: uuid('url_id')
      .notNull()
      .references(() => articles.id, { onDelete: 'cascade' }),
    assignmentMethod: text('assignment_method').notNull(),
    assignmentScore: doublePrecision('assignment_score').notNull(),
    trendRole: text('trend_role').notNull(),
    assignedAt: tstz('assigned_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.trendId, t.urlId] }), index('trend_articles_url_idx').on(t.urlId)],
);

export const trendEdges = pgTable(
  'trend_edges',
  {
    parentId: uuid('parent_id')
      .notNull()
      .references(() => trends.id, { onDelete: 'cascade' }),
    childId: uuid('child_id')
      .notNull()
      .references(() => trends.id, { onDelete: 'cascade' }),
    relationType: text('relation_type').notNull(),
    strength: real('strength').notNull(),
    establishedAt: tstz('established_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.parentId, t.childId] }), index('trend_edges_child_idx').on(t.childId)],
);

/**
 * Articles per trend and UTC day of the article's first_seen_at: the series every derived trend
 * number reads (docs/TRENDS.md). Exact after every ingest batch.
 */
export const trendDays = pgTable(
  'trend_days',
  {
    trendId: uuid('trend_id')
      .notNull()
      .references(() => trends.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    articles: integer('articles').notNull(),
  },
  (t) => [primaryKey({ columns: [t.trendId, t.day] })],
);

/**
 * Each sorted array of markets or top-level categories that hierarchy_articles uses, named once:
 * a scope tests its markets against these few rows, then counts by id (docs/DATA.md).
 */
export const hierarchySets = pgTable(
  'hierarchy_sets',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    items: text('items').array().notNull(),
  },
  (t) => [unique('hierarchy_sets_items_unique').on(t.items)],
);

/**
 * Per hierarchy node and article of its trends (level 1: the node as a topic; 2: as a theme): the
 * markets of the node's trends holding the article, the article's markets (url_profiles) and its
 * top-level categories. Kept at ingest (shared/trends/write-hierarchy.ts); the source of the counts' deltas.
 */
export const hierarchyArticles = pgTable(
  'hierarchy_articles',
  {
    level: smallint('level').notNull(),
    nodeId: uuid('node_id').notNull(),
    urlId: uuid('url_id').notNull(),
    trendSet: integer('trend_set').notNull(),
    articleSet: integer('article_set').notNull(),
    categorySet: integer('category_set').notNull(),
  },
  (t) => [primaryKey({ columns: [t.level, t.nodeId, t.urlId] }), index('hierarchy_articles_url_idx').on(t.urlId)],
);

/** hierarchy_articles counted per node and signature: any scope's n_articles sums the rows it sees. */
export const hierarchySignatures = pgTable(
  'hierarchy_signatures',
  {
    level: smallint('level').notNull(),
    nodeId: uuid('node_id').notNull(),
    trendSet: integer('trend_set').notNull(),
    articleSet: integer('article_set').notNull(),
    categorySet: integer('category_set').notNull(),
    nArticles: integer('n_articles').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.level, t.nodeId, t.trendSet, t.articleSet, t.categorySet] }),
    check('hierarchy_signatures_positive', sql`${t.nArticles} > 0`),
  ],
);

/**
 * n_articles of the common scopes per node and market: `*` every article (every market), `+` the
 * articles that surfaced in a market (a key holding every market of the data), or a country (a
 * one-market key: articles of its trends there that surfaced there). The primary key INCLUDEs the count.
 */
export const hierarchyCounts = pgTable(
  'hierarchy_counts',
  {
    level: smallint('level').notNull(),
    nodeId: uuid('node_id').notNull(),
    market: text('market').notNull(),
    nArticles: integer('n_articles').notNull(),
  },
  (t) => [primaryKey({ columns: [t.level, t.market, t.nodeId] }), check('hierarchy_counts_positive', sql`${t.nArticles} > 0`)],
);
