// Articles (one row per URL), their per-market profiles and hourly observations, publishers,
// categories and entities. Window reads come from the counters and roll-ups, not raw hours.
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';

const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const publishers = pgTable('publishers', {
  /** Clean domain: lower-case, no `www.`. */
  domain: text('domain').primaryKey(),
  name: text('name').notNull(),
  faviconUrl: text('favicon_url'),
  kgId: text('kg_id'),
  isVideo: boolean('is_video').notNull().default(false),
  /** The public Discover profile, when the publisher has one. */
  profileTitle: text('profile_title'),
  followers: bigint('followers', { mode: 'number' }),
});

export interface ArticleMeta {
  meta_title: string;
  meta_description: string;
  headline: string;
  section: string;
}
export interface Enrichment {
  actors: string[];
  topic: string[];
  format_group: string;
  format_type: string;
  entities: Record<string, string[]>;
}
export interface ArticleImage {
  source_url: string;
  width: number;
  height: number;
  content_type: string;
  storage_urls: { original: string; w512: string; w256: string; w128: string; w64: string };
}

export const articles = pgTable(
  'articles',
  {
    id: uuid('id').primaryKey(),
    url: text('url').notNull().unique(),
    domain: text('domain').notNull(),
    publisher: text('publisher').notNull(),
    faviconUrl: text('favicon_url').notNull().default(''),
    title: text('title').notNull(),
    titleEn: text('title_en'),
    summary: text('summary').notNull().default(''),
    summaryEn: text('summary_en'),
    body: text('body').notNull().default(''),
    contentLanguage: text('content_language').notNull(),
    datePublished: tstz('date_published'),
    dateModified: tstz('date_modified'),
    meta: jsonb('meta').$type<ArticleMeta>(),
    enrichment: jsonb('enrichment').$type<Enrichment>(),
    rssFeeds: jsonb('rss_feeds').$type<unknown[] | null>(),
    images: jsonb('images').$type<ArticleImage[]>().notNull().default([]),
    markdownContent: text('markdown_content'),
    imageUrl: text('image_url'),
    /** First time the URL was seen in any market. */
    firstSeenAt: tstz('first_seen_at').notNull(),
    refreshedAt: tstz('refreshed_at').notNull(),
  },
  (t) => [
    index('articles_domain_idx').on(t.domain),
    index('articles_first_seen_idx').on(t.firstSeenAt),
    // 0008_public: a domain's newest publications (public profile check).
    index('articles_domain_recent_idx').on(t.domain, t.firstSeenAt.desc(), t.id),
  ],
);

export const articleCategories = pgTable(
  'article_categories',
  {
    urlId: uuid('url_id')
      .notNull()
      .references(() => articles.id, { onDelete: 'cascade' }),
    /** Taxonomy path, case-sensitive, e.g. `/Sports/Soccer`. */
    name: text('name').notNull(),
    confidence: real('confidence').notNull(),
  },
  (t) => [primaryKey({ columns: [t.urlId, t.name] }), index('article_categories_name_idx').on(t.name)],
);

/**
 * An article's top-level categories (`/Sports` for `/Sports/Soccer`; drizzle/0014_plan_reads.sql), kept
 * with its categories: a category-limited plan sees the article when they overlap its chosen top levels.
 * Articles without categories have no row.
 */
export const articleTops = pgTable(
  'article_tops',
  {
    urlId: uuid('url_id')
      .primaryKey()
      .references(() => articles.id, { onDelete: 'cascade' }),
    /** Distinct, in byte order (`category_tops()`). */
    topCategories: text('top_categories').array().notNull(),
  },
  (t) => [index('article_tops_categories_idx').using('gin', t.topCategories)],
);

/**
 * How many articles reached exactly `markets` (`CC:ll` of their profiles, byte order) with exactly
 * `top_categories` (`{}`: none): the number of articles in any scope is a sum over these rows.
 */
export const articleReach = pgTable(
  'article_reach',
  {
    markets: text('markets').array().notNull(),
    /** The countries of `markets` (`market_countries()`). */
    countries: text('countries').array().notNull(),
    topCategories: text('top_categories').array().notNull(),
    articles: integer('articles').notNull(),
  },
  (t) => [primaryKey({ name: 'article_reach_pk', columns: [t.markets, t.topCategories] })],
);

export const entities = pgTable(
  'entities',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    /** Trimmed, lower-cased name: the dedup and lookup key. */
    normalizedName: text('normalized_name').notNull().unique(),
    entityTypes: text('entity_types').array().notNull().default(sql`'{}'::text[]`),
    wikipediaUrl: text('wikipedia_url').notNull().default(''),
    kgId: text('kg_id').unique(),
    kgName: text('kg_name'),
    kgDescription: text('kg_description'),
    kgImageUrl: text('kg_image_url'),
  },
  // Substring search over the case- and accent-folded name (pg_trgm; drizzle/0007_entities.sql).
  (t) => [index('entities_name_trgm_idx').using('gin', sql`search_norm(${t.name}) gin_trgm_ops`)],
);

export const articleEntities = pgTable(
  'article_entities',
  {
    urlId: uuid('url_id')
      .notNull()
      .references(() => articles.id, { onDelete: 'cascade' }),
    entityId: uuid('entity_id')
      .notNull()
      .references(() => entities.id, { onDelete: 'cascade' }),
    /** The surface form in this article. */
    name: text('name').notNull(),
    type: text('type').notNull(),
    mentions: integer('mentions').notNull().default(1),
    unifiedScore: doublePrecision('unified_score').notNull(),
    embeddingSimilarity: doublePrecision('embedding_similarity').notNull(),
    source: text('source').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.urlId, t.entityId] }),
    index('article_entities_entity_idx').on(t.entityId),
    // An entity's articles by score (GET /v1/entities/{name}/articles, trending's top article).
    index('article_entities_entity_score_idx').on(t.entityId, sql`${t.unifiedScore} DESC`, sql`${t.embeddingSimilarity} DESC`, t.urlId),
  ],
);

/** One profile per URL, country and language: the feed's row. */
export const urlProfiles = pgTable(
  'url_profiles',
  {
    urlId: uuid('url_id')
      .notNull()
      .references(() => articles.id, { onDelete: 'cascade' }),
    country: text('country').notNull(),
    language: text('language').notNull(),
    firstSeen: tstz('first_seen').notNull(),
    lastSeen: tstz('last_seen').notNull(),
    avgPosition: real('avg_position').notNull(),
    contentLanguageFit: boolean('content_language_fit').notNull(),
    impressionsTotal: bigint('impressions_total', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.urlId, t.country, t.language] }),
    index('url_profiles_market_first_seen_idx').on(t.country, t.language, t.firstSeen),
    index('url_profiles_country_first_seen_idx').on(t.country, t.firstSeen),
    index('url_profiles_last_seen_idx').on(t.lastSeen),
    // Keyset indexes of the feed's sorts (drizzle/0005_feed.sql): sort key plus the unique tie-breaker.
    index('url_profiles_first_seen_key_idx').on(t.firstSeen, t.urlId, t.country, t.language),
    index('url_profiles_last_seen_key_idx').on(t.lastSeen, t.urlId, t.country, t.language),
    index('url_profiles_avg_position_key_idx').on(t.avgPosition, t.urlId, t.country, t.language),
  ],
);

/** Raw facts: impressions and mean position of a URL in a market during one UTC hour. */
export const observations = pgTable(
  'observations',
  {
    urlId: uuid('url_id')
      .notNull()
      .references(() => articles.id, { onDelete: 'cascade' }),
    country: text('country').notNull(),
    language: text('language').notNull(),
    hour: tstz('hour').notNull(),
    impressions: integer('impressions').notNull(),
    position: real('position').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.urlId, t.country, t.language, t.hour] }),
    index('observations_market_hour_idx').on(t.country, t.hour),
    /** Which profiles' windows slide when the hour moves (shared/feed/windows.ts). */
    index('observations_hour_idx').on(t.hour),
  ],
);

/** Per market and UTC day: impressions and newly first-seen URLs (geo statistics). */
export const marketDays = pgTable(
  'market_days',
  {
    country: text('country').notNull(),
    language: text('language').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    impressions: bigint('impressions', { mode: 'number' }).notNull().default(0),
    newUrls: integer('new_urls').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.country, t.language, t.day] })],
);
