// Builds the trend roll-up body: window totals of the trend's articles in the requested markets
// (publications = articles with impressions in the window), the previous window's impressions, and
// top-N articles, publishers, countries and entities. It reads the observations of the trend's own
// articles only (index range per article), so its cost follows the trend's size, not the data set.
import { type GetColumnData, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { inPlan } from '../../shared/db/article-filters';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import { articleEntities, articles, entities, observations, publishers, urlProfiles } from '../../shared/db/schema/content';
import { trendArticles } from '../../shared/db/schema/trends';
import { cabinetUrl, iso, round } from '../../shared/format';
import { hourWindow, type SqlWindow } from '../../shared/rollups/buckets';
import { categoriesParam, marketList } from '../../shared/scope/scope';
import { scopeBody, type AggregateWindow } from '../../shared/scope/window-scope';

export const TOP = 10;

export interface RollupInput {
  trendId: string;
  scope: AggregateWindow;
  appUrl: string;
}

/** The trend's articles `ta`, their observations `o`, articles `a` and profiles `q`; publishers `pb`, mentions `ae`, entities `e`. */
const ta = alias(trendArticles, 'ta');
const o = alias(observations, 'o');
const a = alias(articles, 'a');
const q = alias(urlProfiles, 'q');
const pb = alias(publishers, 'pb');
const ae = alias(articleEntities, 'ae');
const e = alias(entities, 'e');

/** What every part of the roll-up reads: the trend, the markets, the language (null: all) and the plan's categories (null: all). */
interface Asked {
  trendId: string;
  markets: string[];
  language: string | null;
  tops: string[] | null;
}

// Per article and market: impressions of the trend's visible articles (in the markets, the language
// and the plan's categories) in the window `w` (whole hours).
const hits = (v: Asked, w: SqlWindow) => sql`
  SELECT ${o.urlId}, ${o.country}, sum(${o.impressions})::float8 AS imps
  FROM ${trendArticles} ${ta} JOIN ${observations} ${o} ON ${o.urlId} = ${ta.urlId}
  WHERE ${ta.trendId} = ${v.trendId} AND ${o.country} = ANY(${sql.param(v.markets)}::text[]) AND (${v.language}::text IS NULL OR ${o.language} = ${v.language})
    AND ${o.hour} >= ${w.from} AND ${o.hour} < ${w.to} AND ${inPlan(v.tops, ta.urlId)}
  GROUP BY ${o.urlId}, ${o.country} HAVING sum(${o.impressions}) > 0`;

/** `LIMIT` of the top-N lists, in the text as a constant. */
const LIMIT_TOP = sql.raw(String(TOP));

interface RollupRow {
  totals: { publications: number; impressions: number; publishers: number; prev_impressions: number; new_articles: number };
  top_articles: {
    id: GetColumnData<typeof articles.id>;
    url: GetColumnData<typeof articles.url>;
    title: GetColumnData<typeof articles.title>;
    domain: GetColumnData<typeof articles.domain>;
    publisher: GetColumnData<typeof articles.publisher>;
    /** JSON: the timestamp as text. */
    first_seen_at: string;
    impressions: number;
  }[];
  publishers: { domain: GetColumnData<typeof articles.domain>; name: string; pubs: number; imps: number }[];
  countries: { country: GetColumnData<typeof observations.country>; pubs: number; imps: number }[];
  entities: { entity_id: string; name: GetColumnData<typeof entities.name>; pubs: number; imps: number }[];
}

export async function computeTrendRollup(db: Db, { trendId, scope, appUrl }: RollupInput) {
  const v: Asked = { trendId, markets: marketList(scope.keyScope), language: scope.language, tops: categoriesParam(scope.keyScope) };
  // `arts a` below (top publishers) is the CTE, not the articles table: its columns are named as text.
  const [row] = await sqlRows<RollupRow>(
    db,
    sql`WITH hits AS (${hits(v, hourWindow(scope.from, scope.to))}),
     prev AS (${hits(v, hourWindow(scope.prevFrom, scope.prevTo))}),
     per_url AS (SELECT url_id, sum(imps)::float8 AS imps FROM hits GROUP BY url_id),
     arts AS (SELECT ${a.id}, ${a.url}, ${a.title}, ${a.domain}, ${a.publisher}, ${a.firstSeenAt}, p.imps FROM per_url p JOIN ${articles} ${a} ON ${a.id} = p.url_id)
     SELECT
       json_build_object(
         'publications', (SELECT count(*) FROM per_url),
         'impressions', (SELECT coalesce(sum(imps), 0) FROM per_url),
         'publishers', (SELECT count(DISTINCT domain) FROM arts),
         'prev_impressions', (SELECT coalesce(sum(imps), 0) FROM prev),
         'new_articles', (SELECT count(*) FROM ${trendArticles} ${ta} JOIN ${articles} ${a} ON ${a.id} = ${ta.urlId}
                          WHERE ${ta.trendId} = ${v.trendId} AND ${a.firstSeenAt} >= ${scope.from.toISOString()}::timestamptz AND ${a.firstSeenAt} < ${scope.to.toISOString()}::timestamptz
                            AND EXISTS (SELECT 1 FROM ${urlProfiles} ${q} WHERE ${q.urlId} = ${a.id} AND ${q.country} = ANY(${sql.param(v.markets)}::text[]) AND (${v.language}::text IS NULL OR ${q.language} = ${v.language}))
                            AND ${inPlan(v.tops, a.id)})) AS totals,
       coalesce((SELECT json_agg(x ORDER BY x.impressions DESC, x.id) FROM (
         SELECT id, url, title, domain, publisher, first_seen_at, imps AS impressions FROM arts ORDER BY imps DESC, id LIMIT ${LIMIT_TOP}) x), '[]') AS top_articles,
       coalesce((SELECT json_agg(x ORDER BY x.imps DESC, x.domain) FROM (
         SELECT a.domain, coalesce(min(${pb.name}), min(a.publisher)) AS name, count(*)::int AS pubs, sum(a.imps)::float8 AS imps
         FROM arts a LEFT JOIN ${publishers} ${pb} ON ${pb.domain} = a.domain GROUP BY a.domain ORDER BY imps DESC, a.domain LIMIT ${LIMIT_TOP}) x), '[]') AS publishers,
       coalesce((SELECT json_agg(x ORDER BY x.imps DESC, x.country) FROM (
         SELECT country, count(*)::int AS pubs, sum(imps)::float8 AS imps FROM hits GROUP BY country ORDER BY imps DESC, country LIMIT ${LIMIT_TOP}) x), '[]') AS countries,
       coalesce((SELECT json_agg(x ORDER BY x.imps DESC, x.name, x.entity_id) FROM (
         SELECT ${e.id}::text AS entity_id, ${e.name}, count(*)::int AS pubs, sum(p.imps)::float8 AS imps
         FROM per_url p JOIN ${articleEntities} ${ae} ON ${ae.urlId} = p.url_id JOIN ${entities} ${e} ON ${e.id} = ${ae.entityId}
         GROUP BY ${e.id}, ${e.name} ORDER BY imps DESC, ${e.name}, ${e.id} LIMIT ${LIMIT_TOP}) x), '[]') AS entities`,
  );
  const t = row!.totals;
  return {
    trend_id: trendId,
    cabinet_url: cabinetUrl(appUrl, 'trend', trendId),
    scope: scopeBody(scope),
    totals: {
      publications: Number(t.publications),
      impressions: Number(t.impressions),
      publishers: Number(t.publishers),
      new_articles: Number(t.new_articles),
      prev_impressions: Number(t.prev_impressions),
      delta_pct:
        Number(t.prev_impressions) > 0
          ? round(((Number(t.impressions) - Number(t.prev_impressions)) / Number(t.prev_impressions)) * 100, 1)
          : null,
    },
    top_articles: row!.top_articles.map((a) => ({
      ...a,
      first_seen_at: iso(a.first_seen_at),
      impressions: Number(a.impressions),
      cabinet_url: cabinetUrl(appUrl, 'article', a.id),
    })),
    publishers: row!.publishers.map((p) => ({ ...p, imps: Number(p.imps) })),
    countries: row!.countries.map((p) => ({ ...p, imps: Number(p.imps) })),
    entities: row!.entities.map((p) => ({ ...p, imps: Number(p.imps) })),
  };
}
