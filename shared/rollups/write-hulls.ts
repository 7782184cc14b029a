// The activity hulls' SQL that both their writers share: the refresh after a batch or a scan
// (write-activity.ts) and the bulk rebuild (shared/ingest/bulk/rebuild-activity.ts).
import { ALL_MARKETS, MARKET_KINDS } from './activity-counts';

/**
 * The markets a member's span counts in, as `FROM ... CROSS JOIN LATERAL` `mk(market)` rows (`kind`
 * the member's kind, `country` the span's): every market, and the span's own for `MARKET_KINDS`.
 * The second row is NULL for other kinds: filter on `mk.market IS NOT NULL`.
 */
export const spanMarkets = (kind: string, country: string) =>
  `CROSS JOIN LATERAL (VALUES ('${ALL_MARKETS}'::text), (CASE WHEN ${keptPerMarket(kind)} THEN ${country} END)) AS mk(market)`;

/** Whether the SQL `kind` is one of MARKET_KINDS. */
export const keptPerMarket = (kind: string) => `${kind} IN (${MARKET_KINDS.map((k) => `'${k}'`).join(', ')})`;

/**
 * A group (kind, key, market, unit, item) as window functions partition by it: the sort that partitioning
 * takes is on its two distinctive columns first, in the "C" collation, which PostgreSQL 15 can sort
 * by abbreviated keys (the database's C.UTF-8 cannot). Equality is bytewise in both, so the groups are
 * the same, and the sort is faster (docs/BENCHMARKS.md "Ingest", the first million lines of 2026-11-28).
 */
export const GROUP_PARTITION = 'item COLLATE "C", key COLLATE "C", kind, market, unit';

/** A group's columns. */
export const GROUP = 'kind, key, market, unit, item';

/** Each group's hull, from its runs (a relation of kind, key, market, unit, item, s, e). */
export const hullsOf = (runs: string) => `SELECT ${GROUP}, min(s) AS first_hour, max(e) AS end_hour FROM ${runs} GROUP BY ${GROUP}`;

/** The holes between a group's consecutive runs. */
export const gapsOf = (runs: string) => `SELECT ${GROUP}, prev AS gap_start, s AS gap_end FROM (
    SELECT *, lag(e) OVER (PARTITION BY ${GROUP_PARTITION} ORDER BY s) AS prev FROM ${runs}) r
  WHERE prev IS NOT NULL`;

/** CTEs `marked`, `numbered` and `runs` over the intervals in `spans` (kind, key, market, unit, item, start_hour, end_hour). */
export const mergeRuns = (spans: string) => `
marked AS (
  SELECT *, max(end_hour) OVER (PARTITION BY ${GROUP_PARTITION} ORDER BY start_hour, end_hour
                                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
  FROM ${spans}),
numbered AS (
  SELECT *, count(*) FILTER (WHERE prev_end IS NULL OR start_hour > prev_end)
              OVER (PARTITION BY ${GROUP_PARTITION} ORDER BY start_hour, end_hour) AS run
  FROM marked),
runs AS (
  SELECT ${GROUP}, min(start_hour) AS s, max(end_hour) AS e FROM numbered GROUP BY ${GROUP}, run)`;

/** A hull "ends" at its last active hour, so that both marks are counted strictly before a boundary. */
const LAST_HOUR = `(end_hour - interval '1 hour')`;

/**
 * The marks of the hulls in `hulls` (first hour: a start; last active hour: an end), counted `sign`
 * times. An open hull (end_hour NULL) has no end mark.
 */
export const marksOf = (hulls: string, sign: 1 | -1) => `
    SELECT kind, key, market, unit, first_hour AS hour, ${sign} AS starts, 0 AS ends FROM ${hulls}
    UNION ALL SELECT kind, key, market, unit, ${LAST_HOUR}, 0, ${sign} FROM ${hulls} WHERE end_hour IS NOT NULL`;

/** The stored end of a hull that ends at `end` (SQL): NULL when that is the hour after the frontier `frontier` (SQL), the hull open. */
export const storedEnd = (end: string, frontier: string) => `nullif(${end}, ${frontier} + interval '1 hour')`;
