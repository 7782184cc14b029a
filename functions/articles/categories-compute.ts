// Per-category analytics over a window, from the dimension roll-ups (kind `category`): sums from
// seriesByKey (dim_days/dim_hours), exact distinct counts from distinctByKey (activity hulls or url_spans).
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import { round } from '../../shared/format';
import { distinctByKey, seriesByKey, withCoverage } from '../../shared/rollups/read';
import type { WindowScope } from '../../shared/window-scope';

export interface PathFilter {
  topLevel: boolean;
  /** Only paths below this one. */
  parent: string | null;
}

/**
 * Every category path with data: the category keys of url_dimensions, which hold each tagged path and
 * its ancestors (shared/categories.ts: `/Sports` covers `/Sports/Soccer`), read as a loose index scan
 * over the primary key: one index probe per path instead of a pass over every tagged article. The
 * taxonomy is small; the filter runs after the scan because a collation need not keep a prefix's
 * paths contiguous.
 */
export async function categoryPaths(db: Db, filter: PathFilter): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    db,
    `WITH RECURSIVE paths(name) AS (
       (SELECT key FROM url_dimensions WHERE kind = 'category' ORDER BY key LIMIT 1)
       UNION ALL
       SELECT (SELECT d.key FROM url_dimensions d WHERE d.kind = 'category' AND d.key > p.name ORDER BY d.key LIMIT 1)
       FROM paths p WHERE p.name IS NOT NULL)
     SELECT name FROM paths
     WHERE name IS NOT NULL AND ($1::text IS NULL OR starts_with(name, $1 || '/')) AND (NOT $2 OR strpos(substr(name, 2), '/') = 0)`,
    [filter.parent, filter.topLevel],
  );
  return rows.map((r) => r.name);
}

const total = (values: number[] | undefined) => (values ?? []).reduce((a, b) => a + b, 0);

export async function categoryAnalytics(db: Db, scope: WindowScope, filter: PathFilter, limit: number, offset: number) {
  const keys = await categoryPaths(db, filter);
  const dim = await withCoverage(db, { kind: 'category', keys, markets: scope.markets, language: scope.language });
  const [cur, prev] = keys.length
    ? await Promise.all([seriesByKey(db, dim, scope.from, scope.to, 'day'), seriesByKey(db, dim, scope.prevFrom, scope.prevTo, 'day')])
    : [new Map(), new Map()];
  const active = keys
    .map((name) => {
      const series = cur.get(name);
      return { name, impressions: total(series?.impressions), positionSum: total(series?.positionSum), previous: total(prev.get(name)?.impressions) };
    })
    .filter((row) => row.impressions > 0)
    .sort((a, b) => b.impressions - a.impressions || (a.name < b.name ? -1 : 1));
  const page = active.slice(offset, offset + limit);
  // Distinct counts only for the page: for a market subset or a language they walk each key's spans.
  const distinct = page.length ? await distinctByKey(db, { ...dim, keys: page.map((r) => r.name) }, scope.from, scope.to) : new Map();
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
