// Per-key facts beyond the sums: lifespans, related names, and trends' recent daily series.
// All read the roll-ups (url_spans, url_dimensions, dim_days), never raw observations.
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import { scopeSpans, spanParams, type DimScope } from '../../shared/rollups/read';
import { entry, keysParam, keysSql, knownKeys } from '../../shared/rollups/scope';
import { marketList } from '../../shared/scope/scope';
import { DAY_MS } from '../../shared/time/windows';

const active = (scope: DimScope) => `SELECT DISTINCT d.key, s.url_id, s.country, s.language FROM ${scopeSpans(scope)}`;

export interface Lifespan {
  livedHours: number;
  avgLifespanHours: number;
}

/** Hours from the key's first profile to its last sighting, and the mean lifespan of its profiles. */
export async function lifespans(db: Db, scope: DimScope, from: Date, to: Date): Promise<Map<string, Lifespan>> {
  const rows = await queryRows<{ key: string; lived: number; avg_life: number }>(
    db,
    `WITH active AS (${active(scope)})
     SELECT a.key, extract(epoch FROM max(p.last_seen) - min(p.first_seen))::float8 / 3600 AS lived,
            avg(extract(epoch FROM p.last_seen - p.first_seen))::float8 / 3600 AS avg_life
     FROM active a JOIN url_profiles p ON (p.url_id, p.country, p.language) = (a.url_id, a.country, a.language)
     GROUP BY a.key`,
    spanParams(scope, from, to),
  );
  return new Map(rows.map((r) => [r.key, { livedHours: r.lived, avgLifespanHours: r.avg_life }]));
}

/** Entities most often found on the key's active publications (entity lists: other than itself). */
export async function relatedEntities(db: Db, scope: DimScope, from: Date, to: Date, top = 5): Promise<Map<string, string[]>> {
  const rows = await queryRows<{ key: string; name: string }>(
    db,
    `WITH active AS (SELECT DISTINCT key, url_id FROM (${active(scope)}) a),
     counted AS (
       SELECT a.key, e.name, count(*) AS n FROM active a JOIN article_entities ae ON ae.url_id = a.url_id JOIN entities e ON e.id = ae.entity_id
       WHERE e.id::text <> a.key GROUP BY a.key, e.name),
     ranked AS (SELECT key, name, row_number() OVER (PARTITION BY key ORDER BY n DESC, name) AS r FROM counted)
     SELECT key, name FROM ranked WHERE r <= ${top} ORDER BY key, r`,
    spanParams(scope, from, to),
  );
  return group(rows);
}

/** Sibling category paths (same parent), most published first. */
export async function siblingCategories(db: Db, scope: DimScope, top = 5): Promise<Map<string, string[]>> {
  const rows = await queryRows<{ key: string; name: string }>(
    db,
    `SELECT k.key, s.name FROM unnest(${keysSql(scope)}) AS k(key)
     CROSS JOIN LATERAL (
       SELECT ac.name FROM article_categories ac
       WHERE ac.name <> k.key AND regexp_replace(ac.name, '/[^/]*$', '') = regexp_replace(k.key, '/[^/]*$', '')
       GROUP BY ac.name ORDER BY count(*) DESC, ac.name LIMIT $1) s`,
    [top, keysParam(scope)],
  );
  return group(rows);
}

/** Daily impressions of each trend over all markets of the scope, the `days` full UTC days before `today`. */
export async function trendDailyHistory(db: Db, scope: DimScope, today: Date, days: number): Promise<Map<string, number[]>> {
  const first = new Date(today.getTime() - days * DAY_MS).toISOString().slice(0, 10);
  const rows = await queryRows<{ key: string; i: number; impressions: number }>(
    db,
    `SELECT k.key, (d.day - $5::date)::int AS i, sum(d.impressions)::float8 AS impressions
     FROM dim_keys k JOIN dim_days d ON d.key_id = k.id
     WHERE k.kind = 'trend' AND k.key = ANY(${keysSql(scope)}) AND d.country = ANY($3::text[]) AND ($4::text IS NULL OR d.language = $4)
       AND d.day >= $5::date AND d.day < $1::date
     GROUP BY k.key, d.day`,
    [today.toISOString().slice(0, 10), keysParam(scope), marketList(scope.keyScope), scope.language, first],
  );
  const empty = () => Array.from({ length: days }, () => 0);
  const out = new Map(knownKeys(scope).map((k) => [k, empty()]));
  for (const r of rows) entry(out, r.key, empty)[r.i] = r.impressions;
  return out;
}

function group(rows: { key: string; name: string }[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const { key, name } of rows) out.set(key, [...(out.get(key) ?? []), name]);
  return out;
}
