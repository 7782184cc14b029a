// Per-category analytics over a window, from the dimension roll-ups (kind `category`): sums from
// seriesByKey (dim_days/dim_hours), exact distinct counts from distinctByKey (activity hulls or url_spans).
import { type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../shared/db/client';
import { dimDays, dimHours, dimKeys, urlDimensions } from '../../shared/db/schema/rollups';
import { round } from '../../shared/format';
import { buckets } from '../../shared/rollups/buckets';
import { distinctByKey, scopeMarkets, seriesByKey, windowRanges, withCoverage, type DerivedKeys } from '../../shared/rollups/read';
import { marketList } from '../../shared/scope/scope';
import type { AggregateWindow } from '../../shared/scope/window-scope';

export interface PathFilter {
  topLevel: boolean;
  /** Only paths below this one. */
  parent: string | null;
}

const d = alias(urlDimensions, 'd');
const dk = alias(dimKeys, 'dk');

/** The category paths with data under the filter, as the CTE `chosen` (a column `name`). */
const PATHS = (filter: PathFilter) => sql`WITH RECURSIVE paths(name) AS (
       (SELECT ${urlDimensions.key} FROM ${urlDimensions} WHERE ${urlDimensions.kind} = 'category' ORDER BY ${urlDimensions.key} LIMIT 1)
       UNION ALL
       SELECT (SELECT ${d.key} FROM ${urlDimensions} ${d} WHERE ${d.kind} = 'category' AND ${d.key} > p.name ORDER BY ${d.key} LIMIT 1)
       FROM paths p WHERE p.name IS NOT NULL),
     chosen AS (
       SELECT name FROM paths
       WHERE name IS NOT NULL AND (${filter.parent ?? ''}::text = '' OR starts_with(name, ${filter.parent ?? ''}::text || '/'))
         AND (NOT ${filter.topLevel}::bool OR strpos(substr(name, 2), '/') = 0))`;

/**
 * Every category path with data, as keys the database finds (shared/rollups/scope.ts): the category
 * keys of url_dimensions, which hold each tagged path and its ancestors (shared/schemas/categories.ts:
 * `/Sports` covers `/Sports/Soccer`), read as a loose index scan over the primary key: one index
 * probe per path instead of a pass over every tagged article. The taxonomy is small; the filter runs
 * after the scan because a collation need not keep a prefix's paths contiguous.
 */
export function categoryPaths(filter: PathFilter): DerivedKeys {
  return { sql: sql`${PATHS(filter)} SELECT coalesce(array_agg(name), '{}') FROM chosen` };
}

/**
 * The paths of one page, ranked as categoryAnalytics ranks them (window impressions, descending, then
 * path in byte order as JS `<` compares them; paths with impressions only): the window's sums as
 * seriesByKey reads them, over the same markets (`scopeMarkets`: the all-markets rows for a scope of
 * every market) from dim_days (whole days) and dim_hours (the head and tail hours). `totals` is
 * materialized: inlined, each path's sums were read twice, once for the filter, once for the order.
 */
function pagePaths(filter: PathFilter, scope: AggregateWindow, everyMarket: boolean, limit: number, offset: number): DerivedKeys {
  const { headEnd, tailStart, hourRanges } = windowRanges(buckets(scope.from, scope.to, 'day'));
  const [head, tail] = [...hourRanges, [headEnd, headEnd], [headEnd, headEnd]];
  const range = ([f, t]: Date[]): SQL => sql`(${f.toISOString()}::text, ${t.toISOString()}::text)`;
  return {
    sql: sql`${PATHS(filter)},
     m AS (${scopeMarkets(everyMarket, marketList(scope.keyScope), scope.language)}),
     totals AS MATERIALIZED (
       SELECT c.name,
         (SELECT coalesce(sum(d.impressions), 0) FROM m CROSS JOIN LATERAL (
            SELECT ${dimDays.impressions} FROM ${dimDays} WHERE ${dimDays.keyId} = ${dk.id} AND ${dimDays.country} = m.country AND ${dimDays.language} = m.language
              AND ${dimDays.day} >= ${headEnd.toISOString().slice(0, 10)}::date AND ${dimDays.day} < ${tailStart.toISOString().slice(0, 10)}::date OFFSET 0) d)
         + (SELECT coalesce(sum(h.impressions), 0) FROM m CROSS JOIN (VALUES ${range(head)}, ${range(tail)}) AS r(f, t) CROSS JOIN LATERAL (
            SELECT ${dimHours.impressions} FROM ${dimHours} WHERE ${dimHours.keyId} = ${dk.id} AND ${dimHours.country} = m.country AND ${dimHours.language} = m.language
              AND ${dimHours.hour} >= r.f::timestamptz AND ${dimHours.hour} < r.t::timestamptz OFFSET 0) h) AS total
       FROM chosen c JOIN ${dimKeys} ${dk} ON ${dk.kind} = 'category' AND ${dk.key} = c.name)
     SELECT coalesce(array_agg(name), '{}') FROM (
       SELECT name FROM totals WHERE total > 0 ORDER BY total DESC, name COLLATE "C" OFFSET ${offset}::int LIMIT ${limit}::int) p`,
    broad: true,
  };
}

const total = (values: number[] | undefined) => (values ?? []).reduce((a, b) => a + b, 0);

/**
 * One wave: both windows' sums, each read finding the paths itself, and the distinct counts of the
 * page's paths, ranked in SQL as the sums rank them (`pagePaths`): from the activity hulls for a
 * scope of every market, else from url_spans, the scope's spans joined to each path's URLs
 * (`distinctFromSpans` for broad keys).
 */
export async function categoryAnalytics(db: Db, scope: AggregateWindow, filter: PathFilter, limit: number, offset: number) {
  const dim = await withCoverage(db, { kind: 'category', keys: categoryPaths(filter), keyScope: scope.keyScope, language: scope.language });
  const [cur, prev, distinct] = await Promise.all([
    seriesByKey(db, dim, scope.from, scope.to, 'day'),
    seriesByKey(db, dim, scope.prevFrom, scope.prevTo, 'day'),
    // Category analytics show publications and publishers: trends are not counted.
    distinctByKey(db, { ...dim, keys: pagePaths(filter, scope, dim.everyMarket!, limit, offset) }, scope.from, scope.to, { trends: false }),
  ]);
  const active = [...cur]
    .map(([name, series]) => ({
      name,
      impressions: total(series.impressions),
      positionSum: total(series.positionSum),
      previous: total(prev.get(name)?.impressions),
    }))
    .filter((row) => row.impressions > 0)
    .sort((a, b) => b.impressions - a.impressions || (a.name < b.name ? -1 : 1));
  const page = active.slice(offset, offset + limit);
  const categories = page.map((row) => ({
    name: row.name,
    impressions: row.impressions,
    previous_impressions: row.previous,
    publications: distinct.get(row.name)?.publications ?? 0,
    publishers: distinct.get(row.name)?.publishers ?? 0,
    avg_position: round(row.positionSum / row.impressions, 2),
    delta_pct: row.previous > 0 ? round(((row.impressions - row.previous) / row.previous) * 100, 1) : null,
  }));
  return { categories, total: active.length };
}
