// Window reads over the dimension roll-ups: sums per bucket from dim_days (whole days) and dim_hours
// (hours and partial days), distinct counts from the activity hulls (activity-counts.ts: every market,
// or one market of a kind kept per market) or url_spans.
// No raw observation is read.
import { type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../db/client';
import { sqlRows } from '../db/raw';
import { marketDays } from '../db/schema/content';
import { dimDays, dimHours, dimKeys, urlDimensions, urlSpans } from '../db/schema/rollups';
import { ALL_MARKETS, distinctFromActivity, MARKET_KINDS, publicationsFromActivity } from './activity-counts';
import { coversAllMarkets, marketsWithData } from './coverage';
import { buckets, ceilHour, hourWindow, type Bucket, type Grain, type SqlWindow } from './buckets';
import { marketList } from '../scope/scope';
import { entry, keysSql, knownKeys, type DimScope, type KeyDistinct } from './scope';

export type { DerivedKeys, DimScope, KeyDistinct, KeyedScope } from './scope';

async function coversEveryMarket(db: Db, scope: DimScope): Promise<boolean> {
  return scope.everyMarket ?? (scope.language === null && coversAllMarkets(await marketsWithData(db), marketList(scope.keyScope)));
}

/**
 * The market of the activity hulls that count a scope's distinct items: `*` for every market and
 * language, the market itself for one market of a kind kept per market (MARKET_KINDS) and every
 * language; null for the others, counted over url_spans.
 */
async function activityMarket(db: Db, scope: DimScope): Promise<string | null> {
  if (await coversEveryMarket(db, scope)) return ALL_MARKETS;
  const markets = marketList(scope.keyScope);
  return scope.language === null && markets.length === 1 && MARKET_KINDS.includes(scope.kind) ? markets[0] : null;
}

/** The scope with `everyMarket` resolved: one query, however many reads follow. */
export async function withCoverage(db: Db, scope: DimScope): Promise<DimScope> {
  return { ...scope, everyMarket: await coversEveryMarket(db, scope) };
}

/** The roll-ups' tables under the names their statements give them (plans read these names). */
export const d = alias(urlDimensions, 'd');
export const s = alias(urlSpans, 's');
const dk = alias(dimKeys, 'dk');

/** The url_spans rows `s` in the scope's markets and language that overlap a window: see `scopeSpans`. */
const spansInScope = (scope: DimScope, w: SqlWindow) => sql`${s.country} = ANY(${sql.param(marketList(scope.keyScope))}::text[])
    AND (${scope.language}::text IS NULL OR ${s.language} = ${scope.language}::text)
    AND ${s.startHour} < ${w.to} AND ${s.endHour} > ${w.from}`;

/**
 * The spans of the scope's keys that overlap a window (whole hours: `hourWindow`), as `FROM ... WHERE ...`
 * (aliases `d` for url_dimensions, `s` for url_spans).
 */
export const scopeSpans = (scope: DimScope, w: SqlWindow) => sql`${urlDimensions} ${d} JOIN ${urlSpans} ${s} ON ${s.urlId} = ${d.urlId}
  WHERE ${d.kind} = ${scope.kind} AND ${d.key} = ANY(${keysSql(scope)}) AND ${spansInScope(scope, w)}`;

/**
 * Where a window's sums are read: whole days are consecutive, so they are one range of dim_days
 * [headEnd, tailStart), and the hours read from dim_hours are a head before the first whole day and
 * a tail after the last one (the whole window when no day is whole).
 */
export function windowRanges(list: Bucket[]) {
  const wholeDays = list.filter((b) => b.wholeDay);
  const start = list.length ? list[0].from : new Date(0);
  const end = list.length ? list[list.length - 1].to : start;
  const headEnd = wholeDays.length ? wholeDays[0].from : end;
  const tailStart = wholeDays.length ? wholeDays[wholeDays.length - 1].to : end;
  return {
    headEnd,
    tailStart,
    hourRanges: [
      [start, headEnd],
      [tailStart, end],
    ].filter(([f, t]) => f < t),
  };
}

/**
 * The (country, language) series a scope's sums read, as a SELECT over its markets and language (null
 * for all): for a scope of every market and language, each key's all-markets rows (one series per key);
 * else the markets' languages (every market with observations has market_days rows).
 */
export function scopeMarkets(everyMarket: boolean, markets: readonly string[], language: string | null): SQL {
  const list = sql`${sql.param(markets)}::text[]`;
  return everyMarket
    ? sql`SELECT ${sql.raw(`'${ALL_MARKETS}'`)}::text AS country, ${sql.raw(`'${ALL_MARKETS}'`)}::text AS language WHERE ${list} IS NOT NULL AND ${language}::text IS NULL`
    : sql`SELECT DISTINCT ${marketDays.country}, ${marketDays.language} FROM ${marketDays} WHERE ${marketDays.country} = ANY(${list}) AND (${language}::text IS NULL OR ${marketDays.language} = ${language}::text)`;
}

export interface KeySeries {
  impressions: number[];
  positionSum: number[];
}

/** Per key: impressions and position sums for each bucket of the window at `grain`. */
export async function seriesByKey(db: Db, scope: DimScope, from: Date, to: Date, grain: Grain): Promise<Map<string, KeySeries>> {
  const list = buckets(from, to, grain);
  const markets = scopeMarkets(await coversEveryMarket(db, scope), marketList(scope.keyScope), scope.language);
  const { headEnd, tailStart, hourRanges } = windowRanges(list);
  // One index range scan per key x market (x hour range): the primary keys are (key_id, country,
  // language, day|hour), so naming the markets' languages (every market with observations has
  // market_days rows) lets the day/hour range bound each descent. A plain `key = ANY(...) AND
  // (language IS NULL OR language = ...)` scanned every hour of every series, or all of dim_hours.
  // OFFSET 0 keeps each LATERAL subquery a parameterized index scan (not pulled up into a join).
  // A key without a number (dim_keys) has no rows.
  const rows = await sqlRows<{ key: string; bucket: string; impressions: number; position_sum: number }>(
    db,
    sql`WITH series AS (
       SELECT k.key, ${dk.id} AS key_id, m.country, m.language
       FROM (SELECT DISTINCT unnest(${keysSql(scope)}) AS key) k
       JOIN ${dimKeys} ${dk} ON ${dk.kind} = ${scope.kind} AND ${dk.key} = k.key
       CROSS JOIN (${markets}) m)
     SELECT s.key, to_char(d.day, 'YYYY-MM-DD') AS bucket, sum(d.impressions)::float8 AS impressions, sum(d.position_sum) AS position_sum
     FROM series s CROSS JOIN LATERAL (
       SELECT ${dimDays.day}, ${dimDays.impressions}, ${dimDays.positionSum} FROM ${dimDays}
       WHERE ${dimDays.keyId} = s.key_id AND ${dimDays.country} = s.country AND ${dimDays.language} = s.language
         AND ${dimDays.day} >= ${headEnd.toISOString().slice(0, 10)}::date AND ${dimDays.day} < ${tailStart.toISOString().slice(0, 10)}::date
       OFFSET 0) d
     GROUP BY s.key, d.day
     UNION ALL
     SELECT s.key, to_char(h.hour AT TIME ZONE 'UTC', ${grain === 'hour' ? 'YYYY-MM-DD"T"HH24' : 'YYYY-MM-DD'}) AS bucket, sum(h.impressions)::float8, sum(h.position_sum)
     FROM series s CROSS JOIN unnest(${sql.param(hourRanges.map(([f]) => f.toISOString()))}::timestamptz[], ${sql.param(hourRanges.map(([, t]) => t.toISOString()))}::timestamptz[]) AS r(f, t) CROSS JOIN LATERAL (
       SELECT ${dimHours.hour}, ${dimHours.impressions}, ${dimHours.positionSum} FROM ${dimHours}
       WHERE ${dimHours.keyId} = s.key_id AND ${dimHours.country} = s.country AND ${dimHours.language} = s.language AND ${dimHours.hour} >= r.f AND ${dimHours.hour} < r.t
       OFFSET 0) h
     GROUP BY s.key, 2`,
  );
  const index = new Map(list.map((b, i) => [grain === 'hour' ? b.ts.toISOString().slice(0, 13) : b.ts.toISOString().slice(0, 10), i]));
  const out = new Map<string, KeySeries>();
  const empty = () => ({ impressions: list.map(() => 0), positionSum: list.map(() => 0) });
  for (const key of knownKeys(scope)) out.set(key, empty());
  for (const row of rows) {
    const series = entry(out, row.key, empty);
    const i = index.get(row.bucket)!;
    series.impressions[i] += row.impressions;
    series.positionSum[i] += row.position_sum;
  }
  return out;
}

export interface DistinctOptions {
  /** One row (key `*`) that counts the union of all keys: distinct counts do not add up. */
  across?: boolean;
  /** Count trends (default). False skips their count over url_spans (category analytics show none); the activity hulls count them with the rest. */
  trends?: boolean;
}

/** Distinct publications, publishers and trends active in [from, to) per key, and when last seen. */
export async function distinctByKey(
  db: Db,
  scope: DimScope,
  from: Date,
  to: Date,
  opts: DistinctOptions = {},
): Promise<Map<string, KeyDistinct>> {
  const market = opts.across ? null : await activityMarket(db, scope);
  return market === null ? distinctFromSpans(db, scope, from, to, opts) : distinctFromActivity(db, scope, from, to, market);
}

/** `hits` of distinctFromSpans: the scope's keys' spans in the window, grouped per key and URL. */
const hitsOfKeys = (scope: DimScope, w: SqlWindow, across: boolean) => sql`hits AS MATERIALIZED (
       SELECT ${across ? sql.raw("'*'::text") : d.key} AS key, ${d.urlId}, max(${s.endHour}) AS last_end
       FROM ${scopeSpans(scope, w)}
       GROUP BY ${across ? d.urlId : sql`${d.key}, ${d.urlId}`})`;

/**
 * The same for broad keys the database finds (`DerivedKeys.broad`). Seeing no key, the planner takes
 * each for a few URLs and probes url_spans URL by URL, whether the keys are a `key = ANY(...)` or
 * walked one by one: three to six times the database time of the plan it picks for the same keys
 * named, for a page of every path (a 300,000-line slice of the bench set; docs/BENCHMARKS.md
 * "Distance"). So the scope's spans are read once, sized by the table's own statistics, and joined
 * to each key's URLs: a range of url_dimensions' primary key per key (OFFSET 0 keeps each LATERAL
 * walk apart). A URL has one `spans` row, so (key, URL) is unique.
 */
const hitsOfBroadKeys = (scope: DimScope, w: SqlWindow, across: boolean) => sql`spans AS MATERIALIZED (
       SELECT ${s.urlId}, max(${s.endHour}) AS last_end FROM ${urlSpans} ${s} WHERE ${spansInScope(scope, w)} GROUP BY ${s.urlId}),
     hits AS MATERIALIZED (
       SELECT ${sql.raw(across ? "DISTINCT '*'::text" : 'k.key')} AS key, sp.url_id, sp.last_end
       FROM (SELECT DISTINCT unnest(${keysSql(scope)}) AS key) k
       CROSS JOIN LATERAL (SELECT ${urlDimensions.urlId} FROM ${urlDimensions} WHERE ${urlDimensions.kind} = ${scope.kind} AND ${urlDimensions.key} = k.key OFFSET 0) d
       JOIN spans sp ON sp.url_id = d.url_id)`;

const l = alias(urlDimensions, 'l');

/** A CTE named after `kind` (publisher, trend): per key, how many distinct such keys its hits' URLs have. */
const linkedCount = (kind: 'publisher' | 'trend') => sql`${sql.raw(kind)} AS (
       SELECT key, count(*)::int AS n FROM (
         SELECT DISTINCT h.key, ${l.key} AS linked FROM hits h JOIN ${urlDimensions} ${l} ON ${l.kind} = ${sql.raw(`'${kind}'`)} AND ${l.urlId} = h.url_id) x
       GROUP BY key)`;

/** The same from url_spans: any market subset and language, and the union of keys (`across`). */
export async function distinctFromSpans(
  db: Db,
  scope: DimScope,
  from: Date,
  to: Date,
  { across = false, trends = true }: DistinctOptions = {},
): Promise<Map<string, KeyDistinct>> {
  // Bounds round up to whole hours: a window inside one hour holds no hour at all.
  if (ceilHour(from) >= ceilHour(to)) return new Map();
  // hits: one row per (key, active URL) with the end of its last active span in the window. The
  // URL's publisher and trends come from url_dimensions (narrow, index-only) rather than from the
  // wide articles table, and each distinct count is a hash aggregate over its own small set.
  const counted = trends ? (['publisher', 'trend'] as const) : (['publisher'] as const);
  const w = hourWindow(from, to);
  const rows = await sqlRows<{ key: string; publications: number; publishers: number; trends: number; last_seen: Date | null }>(
    db,
    sql`WITH ${!Array.isArray(scope.keys) && scope.keys.broad ? hitsOfBroadKeys(scope, w, across) : hitsOfKeys(scope, w, across)},
     per_key AS (SELECT key, count(*)::int AS publications, least(max(last_end), ${w.to}) AS last_seen FROM hits GROUP BY key),
     ${sql.join(counted.map(linkedCount), sql.raw(',\n     '))}
     SELECT k.key, k.publications, coalesce(publisher.n, 0) AS publishers, ${sql.raw(trends ? 'coalesce(trend.n, 0)' : '0')} AS trends, k.last_seen
     FROM per_key k ${sql.raw(counted.map((kind) => `LEFT JOIN ${kind} USING (key)`).join(' '))}`,
  );
  return new Map(
    rows.map((r) => [
      r.key,
      { publications: r.publications, publishers: r.publishers, trends: r.trends, lastSeen: r.last_seen ? new Date(r.last_seen) : null },
    ]),
  );
}

/** Distinct publications active in each bucket, per key. */
export async function publicationsSeries(db: Db, scope: DimScope, from: Date, to: Date, grain: Grain): Promise<Map<string, number[]>> {
  const market = await activityMarket(db, scope);
  return market === null ? publicationsFromSpans(db, scope, from, to, grain) : publicationsFromActivity(db, scope, from, to, grain, market);
}

/** The same from url_spans, for any scope. */
export async function publicationsFromSpans(db: Db, scope: DimScope, from: Date, to: Date, grain: Grain): Promise<Map<string, number[]>> {
  const list = buckets(from, to, grain);
  if (list.length === 0) return new Map(knownKeys(scope).map((k) => [k, []]));
  // The scope's spans in the window first (by key, through the indexes), then their buckets.
  const rows = await sqlRows<{ key: string; i: number; n: number }>(
    db,
    sql`WITH active AS (SELECT ${d.key}, ${s.urlId}, ${s.startHour}, ${s.endHour} FROM ${scopeSpans(scope, hourWindow(from, to))})
     SELECT a.key, b.i::int AS i, count(DISTINCT a.url_id)::int AS n
     FROM active a JOIN unnest(${sql.param(list.map((b) => b.from.toISOString()))}::timestamptz[], ${sql.param(list.map((b) => b.to.toISOString()))}::timestamptz[]) WITH ORDINALITY AS b(f, t, i)
       ON a.start_hour < b.t AND a.end_hour > b.f
     GROUP BY a.key, b.i`,
  );
  const empty = () => list.map(() => 0);
  const out = new Map(knownKeys(scope).map((k) => [k, empty()]));
  for (const r of rows) entry(out, r.key, empty)[r.i - 1] = r.n;
  return out;
}
