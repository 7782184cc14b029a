// Geo rows as the spec shapes them: a region's `stats` (GET .../regions?with_stats=true and GET .../regions/{alpha_2}).
import type { RegionRow } from './queries';

export function toStats(row: RegionRow, perDay: number | undefined) {
  if (row.population === null) return undefined;
  return {
    population: row.population,
    internet_population: row.internet_population ?? 0,
    mobile_chrome_population: row.mobile_chrome_population ?? 0,
    total_discover_impressions_per_day: perDay ?? 0,
  };
}
