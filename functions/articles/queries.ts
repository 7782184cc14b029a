// Article reads. Every query takes the key's Scope with its markets listed (shared/scope.ts: the markets
// it may read and the plan's top-level categories), so an article is only ever described by its in-scope profiles.
import type { Db } from '../../shared/db/client';
import { categoryMatchSql } from '../../shared/categories';
import { inPlanCategories, inPlanCategoriesPerRow } from '../../shared/db/plan-scope';
import { matchesEntityRefs } from '../../shared/db/entity-refs';
import { queryRows } from '../../shared/db/raw';
import { categoriesParam, marketList, type ListedScope } from '../../shared/scope';

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
  id: string;
  url: string;
  title: string;
  domain: string;
  publisher: string;
  content_language: string;
  image_url: string | null;
  date_published: string | null;
  first_seen: string;
  last_seen: string;
  impressions: number;
  countries: string[];
  languages: string[];
  categories: { name: string; confidence: number }[];
}

const SORT = { first_seen: 'first_seen', last_seen: 'last_seen', published_at: 'date_published', impressions: 'impressions' } as const;

/** The categories of `a.id`, most confident first, as JSON. */
export const CATEGORIES_JSON = `(SELECT coalesce(json_agg(json_build_object('name', ac.name, 'confidence', ac.confidence) ORDER BY ac.confidence DESC, ac.name), '[]')
  FROM article_categories ac WHERE ac.url_id = a.id)`;

/**
 * Every word of the search text (a text parameter) begins a word of the title `t.title`, both
 * case- and accent-folded: a prefix query on the title's full-text index (drizzle/0002_search.sql),
 * so a search narrows the candidates before any profile is read.
 */
const titleWords = (param: string) => `to_tsvector('simple', search_norm(t.title)) @@ to_tsquery('simple', array_to_string(ARRAY(
  SELECT quote_literal(w) || ':*' FROM regexp_split_to_table(search_norm(${param}), '[^[:alnum:]]+') AS w WHERE w <> ''), ' & '))`;

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
  const order = `${SORT[f.sortBy]} ${f.sortOrder === 'asc' ? 'ASC' : 'DESC'} NULLS LAST, url_id`;
  const published =
    f.sortBy === 'published_at' ? ', (SELECT t.date_published FROM articles t WHERE t.id = s.url_id) AS date_published' : '';
  const [result] = await queryRows<{ total: number; rows: ArticleRow[] }>(
    db,
    `WITH fresh AS (
       SELECT DISTINCT url_id FROM url_profiles
       WHERE country = ANY($1::text[]) AND ($2::text IS NULL OR language = $2) AND first_seen >= $3 AND first_seen < $4
         AND ($8::text IS NULL OR url_id IN (SELECT t.id FROM articles t WHERE ${titleWords('$8')}))),
     seen AS (
       SELECT p.url_id, min(p.first_seen) AS first_seen, max(p.last_seen) AS last_seen, sum(p.impressions_total)::float8 AS impressions
       FROM fresh JOIN url_profiles p USING (url_id)
       WHERE p.country = ANY($1::text[]) AND ($2::text IS NULL OR p.language = $2)
       GROUP BY p.url_id HAVING min(p.first_seen) >= $3),
     matched AS (
       SELECT s.*${published} FROM seen s
       WHERE ($5::text[] IS NULL OR (
               SELECT count(DISTINCT c.path) FROM unnest($5::text[]) AS c(path)
               JOIN article_categories ac ON ac.url_id = s.url_id AND ${categoryMatchSql('ac.name', 'c.path')}
             ) >= CASE WHEN $7 THEN cardinality($5::text[]) ELSE 1 END)
         AND ${matchesEntityRefs('$6', '$7', 's.url_id', f.entities)}
         AND ${inPlanCategories('$9', 's.url_id')}),
     page AS (SELECT m.*, row_number() OVER (ORDER BY ${order}) AS ord FROM matched m ORDER BY ${order} LIMIT $10 OFFSET $11)
     SELECT (SELECT count(*) FROM matched)::int AS total,
            coalesce((SELECT json_agg(r ORDER BY r.ord) FROM (
              SELECT a.id, a.url, a.title, a.domain, a.publisher, a.content_language, a.image_url, a.date_published,
                     p.first_seen, p.last_seen, p.impressions, m.countries, m.languages, ${CATEGORIES_JSON} AS categories, p.ord
              FROM page p JOIN articles a ON a.id = p.url_id
              -- The markets of the page's articles only (aggregating them for every match cost most of the time).
              CROSS JOIN LATERAL (
                SELECT array_agg(DISTINCT q.country ORDER BY q.country) AS countries, array_agg(DISTINCT q.language ORDER BY q.language) AS languages
                FROM url_profiles q WHERE q.url_id = p.url_id AND q.country = ANY($1::text[]) AND ($2::text IS NULL OR q.language = $2)) m) r), '[]') AS rows`,
    [
      marketList(f.scope),
      f.language,
      f.from.toISOString(),
      f.to.toISOString(),
      f.categories,
      f.entities,
      f.matchAll,
      f.q,
      categoriesParam(f.scope),
      f.limit,
      f.offset,
    ],
  );
  return result;
}

/** Conditions on profile `t`: in the markets ($1) and language ($2, null = all). */
const IN_SCOPE = (t: string) => `${t}.country = ANY($1::text[]) AND ($2::text IS NULL OR ${t}.language = $2::text)`;

/** The URLs whose first sighting in scope lies before `bound` (an expression): one per URL, by its earliest in-scope profile. */
const FIRST_BEFORE = (bound: string) => `(SELECT count(DISTINCT e.url_id) FROM url_profiles e
  WHERE ${IN_SCOPE('e')} AND e.first_seen < ${bound} AND ${inPlanCategories('$5', 'e.url_id')})`;

/** Every article in scope (markets $1, language $2, plan $5), summed over article_reach's combinations (kept exact at ingest). */
const IN_REACH = `(SELECT coalesce(sum(r.articles), 0) FROM article_reach r
  WHERE CASE WHEN $2::text IS NULL THEN r.countries && $1::text[] ELSE r.markets && ARRAY(SELECT c || ':' || $2::text FROM unnest($1::text[]) AS c) END
    AND ($5::text[] IS NULL OR r.top_categories && $5::text[]))`;

/**
 * The number of articles whose first sighting in scope lies in [$3, $4), exact either way; the window
 * decides which side is read. A window over the plan's whole history up to now (the default) holds
 * nearly everything: every article in scope from article_reach, minus those first seen before the
 * window and those whose every in-scope sighting lies after it (both read the few profiles outside it).
 * Any other window: the URLs of its own profiles that have no in-scope profile before it. One branch
 * per statement: the other's estimate would count in the statement's cost, and past jit_above_cost
 * PostgreSQL compiled it for longer than the work took (docs/DATA.md "Plan categories and article reach").
 */
const TOTAL = (wholeHistory: boolean) =>
  wholeHistory
    ? `${IN_REACH} - ${FIRST_BEFORE('$3')}
    - (SELECT count(DISTINCT l.url_id) FROM url_profiles l
       WHERE ${IN_SCOPE('l')} AND l.first_seen >= $4 AND ${inPlanCategories('$5', 'l.url_id')}
         AND NOT EXISTS (SELECT 1 FROM url_profiles b WHERE b.url_id = l.url_id AND ${IN_SCOPE('b')} AND b.first_seen < $4))`
    : `(SELECT count(DISTINCT w.url_id) FROM url_profiles w
      WHERE ${IN_SCOPE('w')} AND w.first_seen >= $3 AND w.first_seen < $4 AND ${inPlanCategories('$5', 'w.url_id')}
        AND NOT EXISTS (SELECT 1 FROM url_profiles b WHERE b.url_id = w.url_id AND ${IN_SCOPE('b')} AND b.first_seen < $3))`;

/**
 * The default listing: a walk of url_profiles in first_seen order that keeps each URL's first in-scope
 * profile (no in-scope profile of the URL comes before it by first_seen, country, language), so the
 * page costs its offset plus limit, whatever the number of matches; the total is TOTAL, in the same statement.
 */
async function listByFirstSighting(db: Db, f: ArticleFilter): Promise<{ total: number; rows: ArticleRow[] }> {
  const dir = f.sortOrder === 'asc' ? 'ASC' : 'DESC';
  const [result] = await queryRows<{ total: number; rows: ArticleRow[] }>(
    db,
    `WITH page AS MATERIALIZED (
       SELECT p.url_id, p.first_seen FROM url_profiles p
       WHERE ${IN_SCOPE('p')} AND p.first_seen >= $3 AND p.first_seen < $4 AND ${inPlanCategoriesPerRow('$5', 'p.url_id')}
         AND NOT EXISTS (SELECT 1 FROM url_profiles q WHERE q.url_id = p.url_id AND ${IN_SCOPE('q')}
           AND (q.first_seen, q.country, q.language) < (p.first_seen, p.country, p.language))
       ORDER BY p.first_seen ${dir}, p.url_id LIMIT $6 OFFSET $7)
     SELECT (${TOTAL(f.wholeHistory === true)})::int AS total,
            coalesce((SELECT json_agg(r ORDER BY r.first_seen ${dir}, r.id) FROM (
              SELECT a.id, a.url, a.title, a.domain, a.publisher, a.content_language, a.image_url, a.date_published,
                     p.first_seen, m.last_seen, m.impressions, m.countries, m.languages, ${CATEGORIES_JSON} AS categories
              FROM page p JOIN articles a ON a.id = p.url_id
              CROSS JOIN LATERAL (
                SELECT max(q.last_seen) AS last_seen, sum(q.impressions_total)::float8 AS impressions,
                       array_agg(DISTINCT q.country ORDER BY q.country) AS countries, array_agg(DISTINCT q.language ORDER BY q.language) AS languages
                FROM url_profiles q WHERE q.url_id = p.url_id AND ${IN_SCOPE('q')}) m) r), '[]') AS rows`,
    [marketList(f.scope), f.language, f.from.toISOString(), f.to.toISOString(), categoriesParam(f.scope), f.limit, f.offset],
  );
  return result;
}

export interface ProfileRow {
  country: string;
  language: string;
  first_seen: string;
  last_seen: string;
  impressions: number;
  avg_position: number;
}

export interface ArticleDetailRow extends Omit<ArticleRow, 'first_seen' | 'last_seen' | 'impressions' | 'countries' | 'languages'> {
  summary: string;
  date_modified: string | null;
  meta: { meta_title: string; meta_description: string; headline: string; section: string } | null;
  entities: { id: string; kg_id: string | null; name: string; type: string; mentions: number; unified_score: number }[];
  /** In-scope profiles; empty when the article never surfaced in the markets. */
  profiles: ProfileRow[];
}

/** One article with its in-scope profiles, categories and entities; undefined when the id is unknown. */
export async function getArticle(db: Db, scope: ListedScope, id: string): Promise<ArticleDetailRow | undefined> {
  const [row] = await queryRows<ArticleDetailRow>(
    db,
    `SELECT a.id, a.url, a.title, a.domain, a.publisher, a.content_language, a.image_url, a.date_published, a.date_modified, a.summary, a.meta,
       ${CATEGORIES_JSON} AS categories,
       (SELECT coalesce(json_agg(json_build_object('id', e.id, 'kg_id', e.kg_id, 'name', e.name, 'type', ae.type, 'mentions', ae.mentions,
          'unified_score', ae.unified_score) ORDER BY ae.unified_score DESC, e.name), '[]')
        FROM article_entities ae JOIN entities e ON e.id = ae.entity_id WHERE ae.url_id = a.id) AS entities,
       (SELECT coalesce(json_agg(json_build_object('country', p.country, 'language', p.language, 'first_seen', p.first_seen, 'last_seen', p.last_seen,
          'impressions', p.impressions_total, 'avg_position', p.avg_position) ORDER BY p.country, p.language), '[]')
        FROM url_profiles p WHERE p.url_id = a.id AND p.country = ANY($2::text[])) AS profiles
     FROM articles a WHERE a.id = $1`,
    [id, marketList(scope)],
  );
  return row;
}
