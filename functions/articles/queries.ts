// Article reads. Every query takes the key's Scope with its markets listed (shared/scope/scope.ts: the markets
// it may read and the plan's top-level categories), so an article is only ever described by its in-scope profiles.
import { type GetColumnData, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { carriesEntities, categoryMatch, inPlan } from '../../shared/db/article-filters';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import { articleCategories, articleEntities, articleReach, articles, entities, urlProfiles } from '../../shared/db/schema/content';
import { categoriesParam, marketList, type ListedScope } from '../../shared/scope/scope';

export interface ArticleFilter {
  /** The key's scope, its markets resolved to the request's `country`. */
  scope: ListedScope;
  /** Lower-case feed language, or null for all. */
  language: string | null;
  /** First sighting in the markets lies in [from, to). */
  from: Date;
  to: Date;
  categories: string[] | null;
  entities: string[] | null;
  matchAll: boolean;
  q: string | null;
  /** The window starts at or before the plan's history and ends at or after now (how the default listing counts). */
  wholeHistory?: boolean;
  sortBy: 'first_seen' | 'last_seen' | 'published_at' | 'impressions';
  sortOrder: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export interface ArticleRow {
  id: GetColumnData<typeof articles.id>;
  url: GetColumnData<typeof articles.url>;
  title: GetColumnData<typeof articles.title>;
  domain: GetColumnData<typeof articles.domain>;
  publisher: GetColumnData<typeof articles.publisher>;
  content_language: GetColumnData<typeof articles.contentLanguage>;
  image_url: GetColumnData<typeof articles.imageUrl>;
  /** Timestamps arrive as Postgres text (the driver's parsers for them are the identity). */
  date_published: string | null;
  first_seen: string;
  last_seen: string;
  impressions: number;
  countries: GetColumnData<typeof urlProfiles.country>[];
  languages: GetColumnData<typeof urlProfiles.language>[];
  categories: { name: GetColumnData<typeof articleCategories.name>; confidence: GetColumnData<typeof articleCategories.confidence> }[];
}

/** The columns of the matching set (`seen`, `matched`) each sort orders by. */
const SORT = { first_seen: 'first_seen', last_seen: 'last_seen', published_at: 'date_published', impressions: 'impressions' } as const;

/** The url_profiles and articles of one statement, by the roles they play in it. */
const p = alias(urlProfiles, 'p');
const q = alias(urlProfiles, 'q');
const a = alias(articles, 'a');

/** The categories of article `id`, most confident first, as JSON. */
const categoriesJson = (
  id: SQLWrapper,
) => sql`(SELECT coalesce(json_agg(json_build_object('name', ${articleCategories.name}, 'confidence', ${articleCategories.confidence})
    ORDER BY ${articleCategories.confidence} DESC, ${articleCategories.name}), '[]')
  FROM ${articleCategories} WHERE ${articleCategories.urlId} = ${id})`;

/**
 * Every word of the search text begins a word of the article's title, both case- and accent-folded: a
 * prefix query on the title's full-text index (drizzle/0002_search.sql), so a search narrows the
 * candidates before any profile is read.
 */
const titleWords = (
  text: string | null,
) => sql`to_tsvector('simple', search_norm(${articles.title})) @@ to_tsquery('simple', array_to_string(ARRAY(
  SELECT quote_literal(w) || ':*' FROM regexp_split_to_table(search_norm(${text}), '[^[:alnum:]]+') AS w WHERE w <> ''), ' & '))`;

/**
 * One page of articles first seen in the window, and how many match in all, in one round trip. The
 * default listing (by first sighting, no category, entity or text filter) never reads every match:
 * listByFirstSighting. Any other sort or filter aggregates the matching set, kept narrow (ids and
 * sort keys); the wide articles rows are read for the page only.
 */
export async function listArticles(db: Db, f: ArticleFilter): Promise<{ total: number; rows: ArticleRow[] }> {
  if (f.sortBy === 'first_seen' && !f.categories && !f.entities && !f.q && f.from < f.to) return listByFirstSighting(db, f);
  return listMatching(db, f);
}

async function listMatching(db: Db, f: ArticleFilter): Promise<{ total: number; rows: ArticleRow[] }> {
  const order = sql.raw(`${SORT[f.sortBy]} ${f.sortOrder === 'asc' ? 'ASC' : 'DESC'} NULLS LAST, url_id`);
  const published =
    f.sortBy === 'published_at'
      ? sql`, (SELECT ${articles.datePublished} FROM ${articles} WHERE ${articles.id} = s.url_id) AS date_published`
      : sql``;
  const markets = sql.param(marketList(f.scope));
  const from = f.from.toISOString();
  const categories = sql.param(f.categories);
  const [result] = await sqlRows<{ total: number; rows: ArticleRow[] }>(
    db,
    sql`WITH fresh AS (
       SELECT DISTINCT ${urlProfiles.urlId} FROM ${urlProfiles}
       WHERE ${urlProfiles.country} = ANY(${markets}::text[]) AND (${f.language}::text IS NULL OR ${urlProfiles.language} = ${f.language})
         AND ${urlProfiles.firstSeen} >= ${from} AND ${urlProfiles.firstSeen} < ${f.to.toISOString()}
         AND (${f.q}::text IS NULL OR ${urlProfiles.urlId} IN (SELECT ${articles.id} FROM ${articles} WHERE ${titleWords(f.q)}))),
     seen AS (
       SELECT ${p.urlId}, min(${p.firstSeen}) AS first_seen, max(${p.lastSeen}) AS last_seen, sum(${p.impressionsTotal})::float8 AS impressions
       FROM fresh JOIN ${urlProfiles} ${p} USING (url_id)
       WHERE ${p.country} = ANY(${markets}::text[]) AND (${f.language}::text IS NULL OR ${p.language} = ${f.language})
       GROUP BY ${p.urlId} HAVING min(${p.firstSeen}) >= ${from}),
     matched AS (
       SELECT s.*${published} FROM seen s
       WHERE (${categories}::text[] IS NULL OR (
               SELECT count(DISTINCT c.path) FROM unnest(${categories}::text[]) AS c(path)
               JOIN ${articleCategories} ON ${articleCategories.urlId} = s.url_id AND ${categoryMatch(articleCategories.name, sql`c.path`)}
             ) >= CASE WHEN ${f.matchAll} THEN cardinality(${categories}::text[]) ELSE 1 END)
         AND ${carriesEntities(f.entities, f.matchAll, sql`s.url_id`)}
         AND ${inPlan(categoriesParam(f.scope), sql`s.url_id`)}),
     page AS (SELECT m.*, row_number() OVER (ORDER BY ${order}) AS ord FROM matched m ORDER BY ${order} LIMIT ${f.limit} OFFSET ${f.offset})
     SELECT (SELECT count(*) FROM matched)::int AS total,
            coalesce((SELECT json_agg(r ORDER BY r.ord) FROM (
              SELECT ${a.id}, ${a.url}, ${a.title}, ${a.domain}, ${a.publisher}, ${a.contentLanguage}, ${a.imageUrl}, ${a.datePublished},
                     pg.first_seen, pg.last_seen, pg.impressions, m.countries, m.languages, ${categoriesJson(a.id)} AS categories, pg.ord
              FROM page pg JOIN ${articles} ${a} ON ${a.id} = pg.url_id
              -- The markets of the page's articles only (aggregating them for every match cost most of the time).
              CROSS JOIN LATERAL (
                SELECT array_agg(DISTINCT ${q.country} ORDER BY ${q.country}) AS countries, array_agg(DISTINCT ${q.language} ORDER BY ${q.language}) AS languages
                FROM ${urlProfiles} ${q} WHERE ${q.urlId} = pg.url_id AND ${inScope(f, q)}) m) r), '[]') AS rows`,
  );
  return result;
}

/** Profile `t` lies in the filter's markets and language (null = all). */
const inScope = (f: ArticleFilter, t: { country: SQLWrapper; language: SQLWrapper }) =>
  sql`${t.country} = ANY(${sql.param(marketList(f.scope))}::text[]) AND (${f.language}::text IS NULL OR ${t.language} = ${f.language}::text)`;

/** The URLs whose first sighting in scope lies before `bound`: one per URL, by its earliest in-scope profile. */
const firstBefore = (f: ArticleFilter, bound: string) => {
  const e = alias(urlProfiles, 'e');
  return sql`(SELECT count(DISTINCT ${e.urlId}) FROM ${urlProfiles} ${e}
  WHERE ${inScope(f, e)} AND ${e.firstSeen} < ${bound} AND ${inPlan(categoriesParam(f.scope), e.urlId)})`;
};

/** Every article in scope, summed over article_reach's combinations (kept exact at ingest). */
const inReach = (f: ArticleFilter) => {
  const markets = sql.param(marketList(f.scope));
  const tops = sql.param(categoriesParam(f.scope));
  return sql`(SELECT coalesce(sum(${articleReach.articles}), 0) FROM ${articleReach}
  WHERE CASE WHEN ${f.language}::text IS NULL THEN ${articleReach.countries} && ${markets}::text[]
             ELSE ${articleReach.markets} && ARRAY(SELECT c || ':' || ${f.language}::text FROM unnest(${markets}::text[]) AS c) END
    AND (${tops}::text[] IS NULL OR ${articleReach.topCategories} && ${tops}::text[]))`;
};

/**
 * The number of articles whose first sighting in scope lies in [from, to), exact either way; the window
 * decides which side is read. A window over the plan's whole history up to now (the default) holds
 * nearly everything: every article in scope from article_reach, minus those first seen before the
 * window and those whose every in-scope sighting lies after it (both read the few profiles outside it).
 * Any other window: the URLs of its own profiles that have no in-scope profile before it. One branch
 * per statement: the other's estimate would count in the statement's cost, and past jit_above_cost
 * PostgreSQL compiled it for longer than the work took (docs/DATA.md "Plan categories and article reach").
 */
function total(f: ArticleFilter): SQL {
  const from = f.from.toISOString();
  const to = f.to.toISOString();
  const b = alias(urlProfiles, 'b');
  const tops = categoriesParam(f.scope);
  if (f.wholeHistory === true) {
    const l = alias(urlProfiles, 'l');
    return sql`${inReach(f)} - ${firstBefore(f, from)}
    - (SELECT count(DISTINCT ${l.urlId}) FROM ${urlProfiles} ${l}
       WHERE ${inScope(f, l)} AND ${l.firstSeen} >= ${to} AND ${inPlan(tops, l.urlId)}
         AND NOT EXISTS (SELECT 1 FROM ${urlProfiles} ${b} WHERE ${b.urlId} = ${l.urlId} AND ${inScope(f, b)} AND ${b.firstSeen} < ${to}))`;
  }
  const w = alias(urlProfiles, 'w');
  return sql`(SELECT count(DISTINCT ${w.urlId}) FROM ${urlProfiles} ${w}
      WHERE ${inScope(f, w)} AND ${w.firstSeen} >= ${from} AND ${w.firstSeen} < ${to} AND ${inPlan(tops, w.urlId)}
        AND NOT EXISTS (SELECT 1 FROM ${urlProfiles} ${b} WHERE ${b.urlId} = ${w.urlId} AND ${inScope(f, b)} AND ${b.firstSeen} < ${from}))`;
}

/**
 * The default listing: a walk of url_profiles in first_seen order that keeps each URL's first in-scope
 * profile (no in-scope profile of the URL comes before it by first_seen, country, language), so the
 * page costs its offset plus limit, whatever the number of matches; the total is `total`, in the same statement.
 */
async function listByFirstSighting(db: Db, f: ArticleFilter): Promise<{ total: number; rows: ArticleRow[] }> {
  const dir = sql.raw(f.sortOrder === 'asc' ? 'ASC' : 'DESC');
  const [result] = await sqlRows<{ total: number; rows: ArticleRow[] }>(
    db,
    sql`WITH page AS MATERIALIZED (
       SELECT ${p.urlId}, ${p.firstSeen} FROM ${urlProfiles} ${p}
       WHERE ${inScope(f, p)} AND ${p.firstSeen} >= ${f.from.toISOString()} AND ${p.firstSeen} < ${f.to.toISOString()}
         AND ${inPlan(categoriesParam(f.scope), p.urlId, true)}
         AND NOT EXISTS (SELECT 1 FROM ${urlProfiles} ${q} WHERE ${q.urlId} = ${p.urlId} AND ${inScope(f, q)}
           AND (${q.firstSeen}, ${q.country}, ${q.language}) < (${p.firstSeen}, ${p.country}, ${p.language}))
       ORDER BY ${p.firstSeen} ${dir}, ${p.urlId} LIMIT ${f.limit} OFFSET ${f.offset})
     SELECT (${total(f)})::int AS total,
            coalesce((SELECT json_agg(r ORDER BY r.first_seen ${dir}, r.id) FROM (
              SELECT ${a.id}, ${a.url}, ${a.title}, ${a.domain}, ${a.publisher}, ${a.contentLanguage}, ${a.imageUrl}, ${a.datePublished},
                     pg.first_seen, m.last_seen, m.impressions, m.countries, m.languages, ${categoriesJson(a.id)} AS categories
              FROM page pg JOIN ${articles} ${a} ON ${a.id} = pg.url_id
              CROSS JOIN LATERAL (
                SELECT max(${q.lastSeen}) AS last_seen, sum(${q.impressionsTotal})::float8 AS impressions,
                       array_agg(DISTINCT ${q.country} ORDER BY ${q.country}) AS countries, array_agg(DISTINCT ${q.language} ORDER BY ${q.language}) AS languages
                FROM ${urlProfiles} ${q} WHERE ${q.urlId} = pg.url_id AND ${inScope(f, q)}) m) r), '[]') AS rows`,
  );
  return result;
}

export interface ProfileRow {
  country: GetColumnData<typeof urlProfiles.country>;
  language: GetColumnData<typeof urlProfiles.language>;
  first_seen: string;
  last_seen: string;
  impressions: number;
  avg_position: GetColumnData<typeof urlProfiles.avgPosition>;
}

export interface ArticleDetailRow extends Omit<ArticleRow, 'first_seen' | 'last_seen' | 'impressions' | 'countries' | 'languages'> {
  summary: GetColumnData<typeof articles.summary>;
  date_modified: string | null;
  meta: GetColumnData<typeof articles.meta>;
  entities: {
    id: GetColumnData<typeof entities.id>;
    kg_id: GetColumnData<typeof entities.kgId>;
    name: GetColumnData<typeof entities.name>;
    type: GetColumnData<typeof articleEntities.type>;
    mentions: GetColumnData<typeof articleEntities.mentions>;
    unified_score: GetColumnData<typeof articleEntities.unifiedScore>;
  }[];
  /** In-scope profiles; empty when the article never surfaced in the markets. */
  profiles: ProfileRow[];
}

/** One article with its in-scope profiles, categories and entities; undefined when the id is unknown. */
export async function getArticle(db: Db, scope: ListedScope, id: string): Promise<ArticleDetailRow | undefined> {
  const [row] = await sqlRows<ArticleDetailRow>(
    db,
    sql`SELECT ${a.id}, ${a.url}, ${a.title}, ${a.domain}, ${a.publisher}, ${a.contentLanguage}, ${a.imageUrl}, ${a.datePublished},
       ${a.dateModified}, ${a.summary}, ${a.meta}, ${categoriesJson(a.id)} AS categories,
       (SELECT coalesce(json_agg(json_build_object('id', ${entities.id}, 'kg_id', ${entities.kgId}, 'name', ${entities.name},
          'type', ${articleEntities.type}, 'mentions', ${articleEntities.mentions}, 'unified_score', ${articleEntities.unifiedScore})
          ORDER BY ${articleEntities.unifiedScore} DESC, ${entities.name}), '[]')
        FROM ${articleEntities} JOIN ${entities} ON ${entities.id} = ${articleEntities.entityId} WHERE ${articleEntities.urlId} = ${a.id}) AS entities,
       (SELECT coalesce(json_agg(json_build_object('country', ${p.country}, 'language', ${p.language}, 'first_seen', ${p.firstSeen},
          'last_seen', ${p.lastSeen}, 'impressions', ${p.impressionsTotal}, 'avg_position', ${p.avgPosition}) ORDER BY ${p.country}, ${p.language}), '[]')
        FROM ${urlProfiles} ${p} WHERE ${p.urlId} = ${a.id} AND ${p.country} = ANY(${sql.param(marketList(scope))}::text[])) AS profiles
     FROM ${articles} ${a} WHERE ${a.id} = ${id}`,
  );
  return row;
}
