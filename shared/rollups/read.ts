// Window reads over the dimension roll-ups: sums per bucket from dim_days (whole days) and dim_hours
// (hours and partial days), distinct counts from url_spans. No raw observation is read.
import type { Db } from '../db/client';
import { queryRows } from '../db/raw';
import type { DimensionKind } from '../db/schema';
import { buckets, ceilHour, type Grain } from './buckets';

export interface DimScope {
  kind: DimensionKind;
  keys: string[];
  /** Upper-case markets. */
  markets: string[];
  /** Lower-case language, or null for all. */
  language: string | null;
}

export interface KeySeries {
  impressions: number[];
  positionSum: number[];
}

/** Per key: impressions and position sums for each bucket of the window at `grain`. */
export async function seriesByKey(db: Db, scope: DimScope, from: Date, to: Date, grain: Grain): Promise<Map<string, KeySeries>> {
  const list = buckets(from, to, grain);
  const whole = list.filter((b) => b.wholeDay).map((b) => b.ts.toISOString().slice(0, 10));
  // Hours of the window whose UTC day is not read whole from dim_days.
  const rows = await queryRows<{ key: string; bucket: string; impressions: number; position_sum: number }>(
    db,
    `SELECT key, to_char(day, 'YYYY-MM-DD') AS bucket, sum(impressions)::float8 AS impressions, sum(position_sum) AS position_sum
     FROM dim_days WHERE kind = $1 AND key = ANY($2::text[]) AND country = ANY($3::text[]) AND ($4::text IS NULL OR language = $4)
       AND day = ANY($5::date[])
     GROUP BY key, day
     UNION ALL
     SELECT key, to_char(hour AT TIME ZONE 'UTC', $8) AS bucket, sum(impressions)::float8, sum(position_sum)
     FROM dim_hours WHERE kind = $1 AND key = ANY($2::text[]) AND country = ANY($3::text[]) AND ($4::text IS NULL OR language = $4)
       AND hour >= $6 AND hour < $7 AND (hour AT TIME ZONE 'UTC')::date <> ALL($5::date[])
     GROUP BY key, 2`,
    [
      scope.kind, scope.keys, scope.markets, scope.language, whole,
      ceilHour(from).toISOString(), ceilHour(to).toISOString(), grain === 'hour' ? 'YYYY-MM-DD"T"HH24' : 'YYYY-MM-DD',
    ],
  );
  const index = new Map(list.map((b, i) => [grain === 'hour' ? b.ts.toISOString().slice(0, 13) : b.ts.toISOString().slice(0, 10), i]));
  const out = new Map<string, KeySeries>();
  for (const key of scope.keys) out.set(key, { impressions: list.map(() => 0), positionSum: list.map(() => 0) });
  for (const row of rows) {
    const series = out.get(row.key)!;
    const i = index.get(row.bucket)!;
    series.impressions[i] += row.impressions;
    series.positionSum[i] += row.position_sum;
  }
  return out;
}

export interface KeyDistinct {
  publications: number;
  publishers: number;
  trends: number;
  lastSeen: Date | null;
}

/**
 * Distinct publications, publishers and trends active in [from, to) per key, and when last seen.
 * With `across`, one row (key `*`) counts the union of all keys: distinct counts do not add up.
 */
export async function distinctByKey(db: Db, scope: DimScope, from: Date, to: Date, across = false): Promise<Map<string, KeyDistinct>> {
  // Bounds round up to whole hours: a window inside one hour holds no hour at all.
  if (ceilHour(from) >= ceilHour(to)) return new Map();
  const rows = await queryRows<{ key: string; publications: number; publishers: number; trends: number; last_seen: Date | null }>(
    db,
    `WITH active AS (
       SELECT DISTINCT ${across ? "'*'::text" : 'd.key'} AS key, s.url_id, least(max(s.end_hour) OVER (PARTITION BY ${across ? '1' : 'd.key'}), $6::timestamptz) AS last_seen
       FROM url_dimensions d JOIN url_spans s ON s.url_id = d.url_id
       WHERE d.kind = $1 AND d.key = ANY($2::text[]) AND s.country = ANY($3::text[]) AND ($4::text IS NULL OR s.language = $4)
         AND s.start_hour < $6 AND s.end_hour > $5)
     SELECT a.key, count(DISTINCT a.url_id)::int AS publications, count(DISTINCT ar.domain)::int AS publishers,
            count(DISTINCT ta.trend_id)::int AS trends, max(a.last_seen) AS last_seen
     FROM active a JOIN articles ar ON ar.id = a.url_id LEFT JOIN trend_articles ta ON ta.url_id = a.url_id
     GROUP BY a.key`,
    [scope.kind, scope.keys, scope.markets, scope.language, ceilHour(from).toISOString(), ceilHour(to).toISOString()],
  );
  return new Map(rows.map((r) => [r.key, { publications: r.publications, publishers: r.publishers, trends: r.trends, lastSeen: r.last_seen ? new Date(r.last_seen) : null }]));
}

/** Distinct publications active in each bucket, per key. */
export async function publicationsSeries(db: Db, scope: DimScope, from: Date, to: Date, grain: Grain): Promise<Map<string, number[]>> {
  const list = buckets(from, to, grain);
  const rows = await queryRows<{ key: string; i: number; n: number }>(
    db,
    `SELECT d.key, b.i::int AS i, count(DISTINCT s.url_id)::int AS n
     FROM unnest($5::timestamptz[], $6::timestamptz[]) WITH ORDINALITY AS b(f, t, i)
     JOIN url_spans s ON s.start_hour < b.t AND s.end_hour > b.f
     JOIN url_dimensions d ON d.url_id = s.url_id
     WHERE d.kind = $1 AND d.key = ANY($2::text[]) AND s.country = ANY($3::text[]) AND ($4::text IS NULL OR s.language = $4)
     GROUP BY d.key, b.i`,
    [scope.kind, scope.keys, scope.markets, scope.language, list.map((b) => b.from.toISOString()), list.map((b) => b.to.toISOString())],
  );
  const out = new Map(scope.keys.map((k) => [k, list.map(() => 0)]));
  for (const r of rows) out.get(r.key)![r.i - 1] = r.n;
  return out;
}
