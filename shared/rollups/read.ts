// Window reads over the dimension roll-ups: sums per bucket from dim_days (whole days) and dim_hours
// (hours and partial days), distinct counts from the activity hulls (activity-counts.ts: every market,
// or one market of a kind kept per market) or url_spans.
// No raw observation is read.
import type { Db } from '../db/client';
import { queryRows } from '../db/raw';
import { ALL_MARKETS, distinctFromActivity, MARKET_KINDS, publicationsFromActivity } from './activity-counts';
import { coversAllMarkets, marketsWithData } from './coverage';
import { buckets, ceilHour, type Bucket, type Grain } from './buckets';
import { marketList } from '../scope/scope';
import { entry, keysParam, keysSql, knownKeys, type DimScope, type KeyDistinct } from './scope';

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

/** The url_spans rows `s` in the scope's markets and language that overlap a window: see `scopeSpans`. */
const spansInScope = (from: string, to: string) => `s.country = ANY($3::text[]) AND ($4::text IS NULL OR s.language = $4)
    AND s.start_hour < ${to}::timestamptz AND s.end_hour > ${from}::timestamptz`;

/**
 * The spans of the scope's keys that overlap a window, as `FROM ... WHERE ...` (aliases `d` for
 * url_dimensions, `s` for url_spans). Parameters: $1 kind, $2 keys (`keysSql`), $3 markets,
 * $4 language, then the window's bounds, `$5`/`$6` unless named: see `spanParams`.
 */
export const scopeSpans = (scope: DimScope, from = '$5', to = '$6') => `url_dimensions d JOIN url_spans s ON s.url_id = d.url_id
  WHERE d.kind = $1 AND d.key = ANY(${keysSql(scope)}) AND ${spansInScope(from, to)}`;

/** Parameters of `scopeSpans()`: the scope, and the window rounded up to whole hours. */
export const spanParams = (scope: DimScope, from: Date, to: Date): unknown[] => [
  scope.kind,
  keysParam(scope),
  marketList(scope.keyScope),
  scope.language,
  ceilHour(from).toISOString(),
  ceilHour(to).toISOString(),
];

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
 * The (country, language) series a scope's sums read, as a SELECT over SQL expressions of its markets
 * (text[]) and language (text, NULL for all): for a scope of every market and language, each key's
 * all-markets rows (one series per key); else the markets' languages (every market with observations
 * has market_days rows).
 */
export const scopeMarkets = (everyMarket: boolean, markets: string, language: string) =>
  everyMarket
    ? `SELECT '${ALL_MARKETS}'::text AS country, '${ALL_MARKETS}'::text AS language WHERE ${markets} IS NOT NULL AND ${language} IS NULL`
    : `SELECT DISTINCT country, language FROM market_days WHERE country = ANY(${markets}) AND (${language} IS NULL OR language = ${language})`;

export interface KeySeries {
  impressions: number[];
  positionSum: number[];
}

/** Per key: impressions and position sums for each bucket of the window at `grain`. */
export async function seriesByKey(db: Db, scope: DimScope, from: Date, to: Date, grain: Grain): Promise<Map<string, KeySeries>> {
  const list = buckets(from, to, grain);
  const markets = scopeMarkets(await coversEveryMarket(db, scope), '$3::text[]', '$4::text');
  const { headEnd, tailStart, hourRanges } = windowRanges(list);
  // One index range scan per key x market (x hour range): the primary keys are (key_id, country,
  // language, day|hour), so naming the markets' languages (every market with observations has
  // market_days rows) lets the day/hour range bound each descent. A plain `key = ANY(...) AND
  // ($4 IS NULL OR language = $4)` scanned every hour of every series, or all of dim_hours.
  // OFFSET 0 keeps each LATERAL subquery a parameterized index scan (not pulled up into a join).
  // A key without a number (dim_keys) has no rows.
  const rows = await queryRows<{ key: string; bucket: string; impressions: number; position_sum: number }>(
    db,
    `WITH series AS (
       SELECT k.key, dk.id AS key_id, m.country, m.language
       FROM (SELECT DISTINCT unnest(${keysSql(scope)}) AS key) k
       JOIN dim_keys dk ON dk.kind = $1 AND dk.key = k.key
       CROSS JOIN (${markets}) m)
     SELECT s.key, to_char(d.day, 'YYYY-MM-DD') AS bucket, sum(d.impressions)::float8 AS impressions, sum(d.position_sum) AS position_sum
     FROM series s CROSS JOIN LATERAL (
       SELECT day, impressions, position_sum FROM dim_days
       WHERE key_id = s.key_id AND country = s.country AND language = s.language AND day >= $5::date AND day < $6::date
       OFFSET 0) d
     GROUP BY s.key, d.day
     UNION ALL
     SELECT s.key, to_char(h.hour AT TIME ZONE 'UTC', $7) AS bucket, sum(h.impressions)::float8, sum(h.position_sum)
     FROM series s CROSS JOIN unnest($8::timestamptz[], $9::timestamptz[]) AS r(f, t) CROSS JOIN LATERAL (
       SELECT hour, impressions, position_sum FROM dim_hours
       WHERE key_id = s.key_id AND country = s.country AND language = s.language AND hour >= r.f AND hour < r.t
       OFFSET 0) h
     GROUP BY s.key, 2`,
    [
      scope.kind,
      keysParam(scope),
      marketList(scope.keyScope),
      scope.language,
      headEnd.toISOString().slice(0, 10),
      tailStart.toISOString().slice(0, 10),
      grain === 'hour' ? 'YYYY-MM-DD"T"HH24' : 'YYYY-MM-DD',
      hourRanges.map(([f]) => f.toISOString()),
      hourRanges.map(([, t]) => t.toISOString()),
    ],
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
const hitsOfKeys = (scope: DimScope, across: boolean) => `hits AS MATERIALIZED (
       SELECT ${across ? "'*'::text" : 'd.key'} AS key, d.url_id, max(s.end_hour) AS last_end
       FROM ${scopeSpans(scope)}
       GROUP BY ${across ? 'd.url_id' : 'd.key, d.url_id'})`;

/**
 * The same for broad keys the database finds (`DerivedKeys.broad`). Seeing no key, the planner takes
 * each for a few URLs and probes url_spans URL by URL, whether the keys are a `key = ANY(...)` or
 * walked one by one: three to six times the database time of the plan it picks for the same keys
 * named, for a page of every path (a 300,000-line slice of the bench set; docs/BENCHMARKS.md
 * "Distance"). So the scope's spans are read once, sized by the table's own statistics, and joined
 * to each key's URLs: a range of url_dimensions' primary key per key (OFFSET 0 keeps each LATERAL
 * walk apart). A URL has one `spans` row, so (key, URL) is unique.
 */
const hitsOfBroadKeys = (scope: DimScope, across: boolean) => `spans AS MATERIALIZED (
       SELECT s.url_id, max(s.end_hour) AS last_end FROM url_spans s WHERE ${spansInScope('$5', '$6')} GROUP BY s.url_id),
     hits AS MATERIALIZED (
       SELECT ${across ? "DISTINCT '*'::text" : 'k.key'} AS key, sp.url_id, sp.last_end
       FROM (SELECT DISTINCT unnest(${keysSql(scope)}) AS key) k
       CROSS JOIN LATERAL (SELECT url_id FROM url_dimensions WHERE kind = $1 AND key = k.key OFFSET 0) d
       JOIN spans sp ON sp.url_id = d.url_id)`;

/** A CTE named after `kind` (publisher, trend): per key, how many distinct such keys its hits' URLs have. */
const linkedCount = (kind: string) => `${kind} AS (
       SELECT key, count(*)::int AS n FROM (
         SELECT DISTINCT h.key, l.key AS linked FROM hits h JOIN url_dimensions l ON l.kind = '${kind}' AND l.url_id = h.url_id) x
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
  const counted = trends ? ['publisher', 'trend'] : ['publisher'];
  const rows = await queryRows<{ key: string; publications: number; publishers: number; trends: number; last_seen: Date | null }>(
    db,
    `WITH ${!Array.isArray(scope.keys) && scope.keys.broad ? hitsOfBroadKeys(scope, across) : hitsOfKeys(scope, across)},
     per_key AS (SELECT key, count(*)::int AS publications, least(max(last_end), $6::timestamptz) AS last_seen FROM hits GROUP BY key),
     ${counted.map(linkedCount).join(',\n     ')}
     SELECT k.key, k.publications, coalesce(publisher.n, 0) AS publishers, ${trends ? 'coalesce(trend.n, 0)' : '0'} AS trends, k.last_seen
     FROM per_key k ${counted.map((kind) => `LEFT JOIN ${kind} USING (key)`).join(' ')}`,
    spanParams(scope, from, to),
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
  const rows = await queryRows<{ key: string; i: number; n: number }>(
    db,
    `WITH active AS (SELECT d.key, s.url_id, s.start_hour, s.end_hour FROM ${scopeSpans(scope)})
     SELECT a.key, b.i::int AS i, count(DISTINCT a.url_id)::int AS n
     FROM active a JOIN unnest($7::timestamptz[], $8::timestamptz[]) WITH ORDINALITY AS b(f, t, i) ON a.start_hour < b.t AND a.end_hour > b.f
     GROUP BY a.key, b.i`,
    [...spanParams(scope, from, to), list.map((b) => b.from.toISOString()), list.map((b) => b.to.toISOString())],
  );
  const empty = () => list.map(() => 0);
  const out = new Map(knownKeys(scope).map((k) => [k, empty()]));
  for (const r of rows) entry(out, r.key, empty)[r.i - 1] = r.n;
  return out;
}
