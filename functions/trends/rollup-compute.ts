// Builds the trend roll-up body: window totals of the trend's articles in the requested markets
// (publications = articles with impressions in the window), the previous window's impressions, and
// top-N articles, publishers, countries and entities. It reads the observations of the trend's own
// articles only (index range per article), so its cost follows the trend's size, not the data set.
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import { cabinetUrl, iso, round } from '../../shared/format';
import { ceilHour } from '../../shared/rollups/buckets';
import { categoriesParam, marketList } from '../../shared/scope/scope';
import { scopeBody, type AggregateWindow } from '../../shared/scope/window-scope';
import { inPlanCategories } from '../../shared/db/plan-scope';

export const TOP = 10;

export interface RollupInput {
  trendId: string;
  scope: AggregateWindow;
  appUrl: string;
}

// Per article and market: impressions of the trend's visible articles in [$4, $5).
// $1 trend, $2 markets, $3 language, $4/$5 window, $6 plan categories.
const HITS = (from: string, to: string) => `
  SELECT o.url_id, o.country, sum(o.impressions)::float8 AS imps
  FROM trend_articles ta JOIN observations o ON o.url_id = ta.url_id
  WHERE ta.trend_id = $1 AND o.country = ANY($2::text[]) AND ($3::text IS NULL OR o.language = $3)
    AND o.hour >= ${from}::timestamptz AND o.hour < ${to}::timestamptz AND ${inPlanCategories('$6', 'ta.url_id')}
  GROUP BY o.url_id, o.country HAVING sum(o.impressions) > 0`;

interface RollupRow {
  totals: { publications: number; impressions: number; publishers: number; prev_impressions: number; new_articles: number };
  top_articles: { id: string; url: string; title: string; domain: string; publisher: string; first_seen_at: string; impressions: number }[];
  publishers: { domain: string; name: string; pubs: number; imps: number }[];
  countries: { country: string; pubs: number; imps: number }[];
  entities: { entity_id: string; name: string; pubs: number; imps: number }[];
}

export async function computeTrendRollup(db: Db, { trendId, scope, appUrl }: RollupInput) {
  const from = ceilHour(scope.from).toISOString();
  const to = ceilHour(scope.to).toISOString();
  const [row] = await queryRows<RollupRow>(
    db,
    `WITH hits AS (${HITS('$4', '$5')}),
     prev AS (${HITS('$7', '$8')}),
     per_url AS (SELECT url_id, sum(imps)::float8 AS imps FROM hits GROUP BY url_id),
     arts AS (SELECT a.id, a.url, a.title, a.domain, a.publisher, a.first_seen_at, p.imps FROM per_url p JOIN articles a ON a.id = p.url_id)
     SELECT
       json_build_object(
         'publications', (SELECT count(*) FROM per_url),
         'impressions', (SELECT coalesce(sum(imps), 0) FROM per_url),
         'publishers', (SELECT count(DISTINCT domain) FROM arts),
         'prev_impressions', (SELECT coalesce(sum(imps), 0) FROM prev),
         'new_articles', (SELECT count(*) FROM trend_articles ta JOIN articles a ON a.id = ta.url_id
                          WHERE ta.trend_id = $1 AND a.first_seen_at >= $9::timestamptz AND a.first_seen_at < $10::timestamptz
                            AND EXISTS (SELECT 1 FROM url_profiles q WHERE q.url_id = a.id AND q.country = ANY($2::text[]) AND ($3::text IS NULL OR q.language = $3))
                            AND ${inPlanCategories('$6', 'a.id')})) AS totals,
       coalesce((SELECT json_agg(x ORDER BY x.impressions DESC, x.id) FROM (
         SELECT id, url, title, domain, publisher, first_seen_at, imps AS impressions FROM arts ORDER BY imps DESC, id LIMIT ${TOP}) x), '[]') AS top_articles,
       coalesce((SELECT json_agg(x ORDER BY x.imps DESC, x.domain) FROM (
         SELECT a.domain, coalesce(min(pb.name), min(a.publisher)) AS name, count(*)::int AS pubs, sum(a.imps)::float8 AS imps
         FROM arts a LEFT JOIN publishers pb ON pb.domain = a.domain GROUP BY a.domain ORDER BY imps DESC, a.domain LIMIT ${TOP}) x), '[]') AS publishers,
       coalesce((SELECT json_agg(x ORDER BY x.imps DESC, x.country) FROM (
         SELECT country, count(*)::int AS pubs, sum(imps)::float8 AS imps FROM hits GROUP BY country ORDER BY imps DESC, country LIMIT ${TOP}) x), '[]') AS countries,
       coalesce((SELECT json_agg(x ORDER BY x.imps DESC, x.name, x.entity_id) FROM (
         SELECT e.id::text AS entity_id, e.name, count(*)::int AS pubs, sum(p.imps)::float8 AS imps
         FROM per_url p JOIN article_entities ae ON ae.url_id = p.url_id JOIN entities e ON e.id = ae.entity_id
         GROUP BY e.id, e.name ORDER BY imps DESC, e.name, e.id LIMIT ${TOP}) x), '[]') AS entities`,
    [
      trendId,
      marketList(scope.keyScope),
      scope.language,
      from,
      to,
      categoriesParam(scope.keyScope),
      ceilHour(scope.prevFrom).toISOString(),
      ceilHour(scope.prevTo).toISOString(),
      scope.from.toISOString(),
      scope.to.toISOString(),
    ],
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
