// Per-key facts beyond the sums: lifespans, related names, and trends' recent daily series.
// All read the roll-ups (url_spans, url_dimensions, dim_days), never raw observations.
import { sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import { articleCategories, articleEntities, entities, urlProfiles } from '../../shared/db/schema/content';
import { dimDays, dimKeys } from '../../shared/db/schema/rollups';
import { hourWindow } from '../../shared/rollups/buckets';
import { d, s, scopeSpans, type DimScope } from '../../shared/rollups/read';
import { entry, keysSql, knownKeys } from '../../shared/rollups/scope';
import { marketList } from '../../shared/scope/scope';
import { DAY_MS } from '../../shared/time/windows';

const p = alias(urlProfiles, 'p');
const ae = alias(articleEntities, 'ae');
const e = alias(entities, 'e');
const ac = alias(articleCategories, 'ac');
const k = alias(dimKeys, 'k');
const dd = alias(dimDays, 'd');

/** The key's URLs active in [from, to) (whole hours), per market. */
const active = (scope: DimScope, from: Date, to: Date) =>
  sql`SELECT DISTINCT ${d.key}, ${s.urlId}, ${s.country}, ${s.language} FROM ${scopeSpans(scope, hourWindow(from, to))}`;

export interface Lifespan {
  livedHours: number;
  avgLifespanHours: number;
}

/** Hours from the key's first profile to its last sighting, and the mean lifespan of its profiles. */
export async function lifespans(db: Db, scope: DimScope, from: Date, to: Date): Promise<Map<string, Lifespan>> {
  const rows = await sqlRows<{ key: string; lived: number; avg_life: number }>(
    db,
    sql`WITH active AS (${active(scope, from, to)})
     SELECT a.key, extract(epoch FROM max(${p.lastSeen}) - min(${p.firstSeen}))::float8 / 3600 AS lived,
            avg(extract(epoch FROM ${p.lastSeen} - ${p.firstSeen}))::float8 / 3600 AS avg_life
     FROM active a JOIN ${urlProfiles} ${p} ON (${p.urlId}, ${p.country}, ${p.language}) = (a.url_id, a.country, a.language)
     GROUP BY a.key`,
  );
  return new Map(rows.map((r) => [r.key, { livedHours: r.lived, avgLifespanHours: r.avg_life }]));
}

/** Entities most often found on the key's active publications (entity lists: other than itself). */
export async function relatedEntities(db: Db, scope: DimScope, from: Date, to: Date, top = 5): Promise<Map<string, string[]>> {
  const rows = await sqlRows<{ key: string; name: string }>(
    db,
    sql`WITH active AS (SELECT DISTINCT key, url_id FROM (${active(scope, from, to)}) a),
     counted AS (
       SELECT a.key, ${e.name}, count(*) AS n FROM active a JOIN ${articleEntities} ${ae} ON ${ae.urlId} = a.url_id JOIN ${entities} ${e} ON ${e.id} = ${ae.entityId}
       WHERE ${e.id}::text <> a.key GROUP BY a.key, ${e.name}),
     ranked AS (SELECT key, name, row_number() OVER (PARTITION BY key ORDER BY n DESC, name) AS r FROM counted)
     SELECT key, name FROM ranked WHERE r <= ${sql.raw(String(top))} ORDER BY key, r`,
  );
  return group(rows);
}

/** Sibling category paths (same parent), most published first. */
export async function siblingCategories(db: Db, scope: DimScope, top = 5): Promise<Map<string, string[]>> {
  const rows = await sqlRows<{ key: string; name: string }>(
    db,
    sql`SELECT k.key, s.name FROM unnest(${keysSql(scope)}) AS k(key)
     CROSS JOIN LATERAL (
       SELECT ${ac.name} FROM ${articleCategories} ${ac}
       WHERE ${ac.name} <> k.key AND regexp_replace(${ac.name}, '/[^/]*$', '') = regexp_replace(k.key, '/[^/]*$', '')
       GROUP BY ${ac.name} ORDER BY count(*) DESC, ${ac.name} LIMIT ${top}) s`,
  );
  return group(rows);
}

/** Daily impressions of each trend over all markets of the scope, the `days` full UTC days before `today`. */
export async function trendDailyHistory(db: Db, scope: DimScope, today: Date, days: number): Promise<Map<string, number[]>> {
  const first = new Date(today.getTime() - days * DAY_MS).toISOString().slice(0, 10);
  const rows = await sqlRows<{ key: string; i: number; impressions: number }>(
    db,
    sql`SELECT ${k.key}, (${dd.day} - ${first}::date)::int AS i, sum(${dd.impressions})::float8 AS impressions
     FROM ${dimKeys} ${k} JOIN ${dimDays} ${dd} ON ${dd.keyId} = ${k.id}
     WHERE ${k.kind} = 'trend' AND ${k.key} = ANY(${keysSql(scope)}) AND ${dd.country} = ANY(${sql.param(marketList(scope.keyScope))}::text[])
       AND (${scope.language}::text IS NULL OR ${dd.language} = ${scope.language}::text)
       AND ${dd.day} >= ${first}::date AND ${dd.day} < ${today.toISOString().slice(0, 10)}::date
     GROUP BY ${k.key}, ${dd.day}`,
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
