// Per-category analytics over a window, from the dimension roll-ups (kind `category`): sums from
// seriesByKey (dim_days/dim_hours), exact distinct counts from distinctByKey (activity hulls or url_spans).
import type { Db } from '../../shared/db/client';
import { round } from '../../shared/format';
import { distinctByKey, seriesByKey, withCoverage, type DerivedKeys } from '../../shared/rollups/read';
import type { WindowScope } from '../../shared/window-scope';

export interface PathFilter {
  topLevel: boolean;
  /** Only paths below this one. */
  parent: string | null;
}

/**
 * Every category path with data, as keys the database finds (shared/rollups/scope.ts): the category
 * keys of url_dimensions, which hold each tagged path and its ancestors (shared/categories.ts:
 * `/Sports` covers `/Sports/Soccer`), read as a loose index scan over the primary key: one index
 * probe per path instead of a pass over every tagged article. The taxonomy is small; the filter runs
 * after the scan because a collation need not keep a prefix's paths contiguous. Arguments: the
 * parent path ('' for none), 't' for top-level paths only.
 */
export function categoryPaths(filter: PathFilter): DerivedKeys {
  return {
    sql: `WITH RECURSIVE paths(name) AS (
       (SELECT key FROM url_dimensions WHERE kind = 'category' ORDER BY key LIMIT 1)
       UNION ALL
       SELECT (SELECT d.key FROM url_dimensions d WHERE d.kind = 'category' AND d.key > p.name ORDER BY d.key LIMIT 1)
       FROM paths p WHERE p.name IS NOT NULL)
     SELECT coalesce(array_agg(name), '{}') FROM paths
     WHERE name IS NOT NULL AND (($2::text[])[1] = '' OR starts_with(name, ($2::text[])[1] || '/'))
       AND (($2::text[])[2] = 'f' OR strpos(substr(name, 2), '/') = 0)`,
    args: [filter.parent ?? '', filter.topLevel ? 't' : 'f'],
  };
}

const total = (values: number[] | undefined) => (values ?? []).reduce((a, b) => a + b, 0);

/**
 * One wave of reads, each finding the paths itself: both windows' sums, and the distinct counts of
 * every active path (the page is known only once the sums are ranked; the biggest paths, which the
 * first pages show, are most of that work anyway).
 */
export async function categoryAnalytics(db: Db, scope: WindowScope, filter: PathFilter, limit: number, offset: number) {
  const dim = await withCoverage(db, { kind: 'category', keys: categoryPaths(filter), markets: scope.markets, language: scope.language });
  const [cur, prev, distinct] = await Promise.all([
    seriesByKey(db, dim, scope.from, scope.to, 'day'),
    seriesByKey(db, dim, scope.prevFrom, scope.prevTo, 'day'),
    distinctByKey(db, dim, scope.from, scope.to),
  ]);
  const active = [...cur]
    .map(([name, series]) => ({ name, impressions: total(series.impressions), positionSum: total(series.positionSum), previous: total(prev.get(name)?.impressions) }))
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
