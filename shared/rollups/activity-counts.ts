// Distinct counts from the activity hulls (dim_activity*; docs/DATA.md "Why distinct counts stay exact"). An item
// is active in [F, T) when its hull overlaps the window and the window does not fall inside one of
// its gaps, so per key and unit:
//   active = #{first_hour < T} - #{last_hour < F} - #{gaps with gap_start <= F and gap_end >= T}
// (last_hour = end_hour - 1h, the hull's last active hour; an open hull, whose last hour is the frontier,
// has no end mark, which is exact for every window that starts at or before the frontier: a later one holds nothing)
// The first two are sums of hull marks per day (whole days) and per hour (the edge day), the third
// a short index range: the work depends on keys and days, not on how many URLs a key has.
// The `*` hulls merge all markets and languages, so they answer scopes that cover every market with
// data and every language; the kinds kept per market (MARKET_KINDS) answer one market with every
// language from that market's hulls; `read.ts` falls back to url_spans for the others.
import { type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../db/client';
import { sqlRows } from '../db/raw';
import { activityFrontier, dimActivityDays, dimActivityGaps, dimActivityHours, dimHours, dimKeys } from '../db/schema/rollups';
import { buckets, ceilHour, type Grain } from './buckets';
import { entry, keysSql, knownKeys, type DimScope, type KeyDistinct } from './scope';
import { DAY_MS as DAY } from '../time/windows';

/**
 * country = language = '*' in dim_hours / dim_days: a key's totals over every market and language,
 * kept beside the per-market rows (shared/rollups/write.ts) for scopes that cover every market.
 */
export const ALL_MARKETS = '*';

/**
 * Kinds whose activity hulls are also kept per market (country, its languages together) beside the
 * `*` ones (shared/rollups/write-hulls.ts): category analytics count one market's publications and
 * publishers from them. Other kinds count a market subset over url_spans.
 */
export const MARKET_KINDS: readonly string[] = ['category'];

const dayStart = (d: Date) => new Date(Math.floor(d.getTime() / DAY) * DAY);

/** The hull tables under the names their statements give them (plans read these names). */
const ad = alias(dimActivityDays, 'a');
const ah = alias(dimActivityHours, 'a');
const g = alias(dimActivityGaps, 'g');
const dk = alias(dimKeys, 'dk');

/** The statements' parts: the scope's kind and market, and the hour before which marks count. */
interface Marks {
  kind: string;
  market: string;
  /** The hull's unit, as SQL (`u.unit`, or a unit named). */
  unit: SQL;
  bound: Date;
}

/**
 * How many hull marks (`starts` or `ends`) of the key `k.key`, the market and unit lie before the hour
 * `bound`: whole days before its day (dim_activity_days), then its day's hours from the day's start.
 */
const before = (col: 'starts' | 'ends', { kind, market, unit, bound }: Marks) => {
  const start = dayStart(bound);
  return sql`(
    (SELECT coalesce(sum(${ad[col]}), 0) FROM ${dimActivityDays} ${ad}
     WHERE ${ad.kind} = ${kind} AND ${ad.key} = k.key AND ${ad.market} = ${market} AND ${ad.unit} = ${unit} AND ${ad.day} < ${start.toISOString().slice(0, 10)}::date)
    + (SELECT coalesce(sum(${ah[col]}), 0) FROM ${dimActivityHours} ${ah}
       WHERE ${ah.kind} = ${kind} AND ${ah.key} = k.key AND ${ah.market} = ${market} AND ${ah.unit} = ${unit}
         AND ${ah.hour} >= ${start.toISOString()}::timestamptz AND ${ah.hour} < ${bound.toISOString()}::timestamptz))`;
};

/** Per key of the scope: its distinct counts in [f, t) (`f`, `t` whole hours) in the market, and when last seen. */
const COUNTS = (scope: DimScope, market: string, f: Date, t: Date) => {
  const marks = (bound: Date): Marks => ({ kind: scope.kind, market, unit: sql.raw('u.unit'), bound });
  return sql`
WITH k AS (SELECT DISTINCT unnest(${keysSql(scope)}) AS key),
u AS (SELECT unnest(ARRAY['publication', 'publisher', 'trend']) AS unit),
counts AS (
  SELECT k.key, u.unit,
    ${before('starts', marks(t))}
    - ${before('ends', marks(f))}
    - (SELECT count(*) FROM ${dimActivityGaps} ${g}
       WHERE ${g.kind} = ${scope.kind} AND ${g.key} = k.key AND ${g.market} = ${market} AND ${g.unit} = u.unit
         AND ${g.gapEnd} >= ${t.toISOString()}::timestamptz AND ${g.gapStart} <= ${f.toISOString()}::timestamptz) AS n
  FROM k CROSS JOIN u),
-- Last seen: the end of the latest hour with impressions in the window, in the market (the
-- all-markets rows of dim_hours: country = language = '*'; a market's: its languages).
seen AS (
  SELECT k.key, h.hour + interval '1 hour' AS last_seen
  FROM k JOIN ${dimKeys} ${dk} ON ${dk.kind} = ${scope.kind} AND ${dk.key} = k.key CROSS JOIN LATERAL (
    SELECT ${dimHours.hour} FROM ${dimHours}
    WHERE ${dimHours.keyId} = ${dk.id} AND ${dimHours.country} = ${market} ${market === ALL_MARKETS ? sql`AND ${dimHours.language} = ${sql.raw(`'${ALL_MARKETS}'`)}` : sql``}
      AND ${dimHours.hour} >= ${f.toISOString()}::timestamptz AND ${dimHours.hour} < ${t.toISOString()}::timestamptz AND ${dimHours.impressions} > 0
    ORDER BY ${dimHours.hour} DESC LIMIT 1) h)
SELECT c.key,
  sum(n) FILTER (WHERE unit = 'publication')::int AS publications,
  sum(n) FILTER (WHERE unit = 'publisher')::int AS publishers,
  sum(n) FILTER (WHERE unit = 'trend')::int AS trends,
  s.last_seen
FROM counts c LEFT JOIN seen s USING (key)
WHERE ${f.toISOString()}::timestamptz <= (SELECT ${activityFrontier.hour} FROM ${activityFrontier})
GROUP BY c.key, s.last_seen`;
};

/**
 * Distinct publications, publishers and trends per key, for a scope of every market and language
 * (`market` `*`), or of one market kept per market and every language.
 */
export async function distinctFromActivity(
  db: Db,
  scope: DimScope,
  from: Date,
  to: Date,
  market: string = ALL_MARKETS,
): Promise<Map<string, KeyDistinct>> {
  const f = ceilHour(from);
  const t = ceilHour(to);
  if (f >= t) return new Map();
  const rows = await sqlRows<{ key: string; publications: number; publishers: number; trends: number; last_seen: string | Date | null }>(
    db,
    COUNTS(scope, market, f, t),
  );
  const out = new Map<string, KeyDistinct>();
  for (const r of rows) {
    if (r.publications <= 0) continue;
    // A publisher key is one publisher; its own group is not stored (its writers: write-activity.ts, shared/ingest/bulk/rebuild-activity.ts).
    const publishers = scope.kind === 'publisher' ? 1 : r.publishers;
    out.set(r.key, { publications: r.publications, publishers, trends: r.trends, lastSeen: r.last_seen ? new Date(r.last_seen) : null });
  }
  return out;
}

/** The window of `publicationsFromActivity`: [start, end), and its whole days [wholeFrom, wholeTo) when `whole`. */
interface BucketWindow {
  start: Date;
  end: Date;
  whole: boolean;
  wholeFrom: Date;
  wholeTo: Date;
}

const GAP_TIME = 'YYYY-MM-DD"T"HH24:MI:SS"Z"';

// Per key, in the market: publications first seen before the window's start and last seen before it,
// the marks inside the window (whole days from dim_activity_days when it has whole days, else hours),
// and the gaps that overlap the window.
const BUCKET_MARKS = (scope: DimScope, market: string, w: BucketWindow) => {
  const keys = keysSql(scope);
  const marks: Marks = { kind: scope.kind, market, unit: sql.raw("'publication'"), bound: w.start };
  const [start, end] = [sql`${w.start.toISOString()}::timestamptz`, sql`${w.end.toISOString()}::timestamptz`];
  const [wholeFrom, wholeTo] = [sql`${w.wholeFrom.toISOString().slice(0, 10)}::date`, sql`${w.wholeTo.toISOString().slice(0, 10)}::date`];
  return sql`
WITH k AS (SELECT DISTINCT unnest(${keys}) AS key)
SELECT k.key, 'base' AS part, NULL::text AS at,
  ${before('starts', marks)} AS starts,
  ${before('ends', marks)} AS ends,
  NULL::text AS gap_end
FROM k
UNION ALL
SELECT ${ah.key}, 'mark', to_char(${ah.hour} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24'), ${ah.starts}, ${ah.ends}, NULL FROM ${dimActivityHours} ${ah}
WHERE ${ah.kind} = ${scope.kind} AND ${ah.key} = ANY(${keys}) AND ${ah.market} = ${market} AND ${ah.unit} = 'publication' AND ${ah.hour} >= ${start} AND ${ah.hour} < ${end}
  AND NOT (${w.whole} AND (${ah.hour} AT TIME ZONE 'UTC')::date >= ${wholeFrom} AND (${ah.hour} AT TIME ZONE 'UTC')::date < ${wholeTo})
UNION ALL
SELECT ${ad.key}, 'mark', to_char(${ad.day}, 'YYYY-MM-DD'), ${ad.starts}, ${ad.ends}, NULL FROM ${dimActivityDays} ${ad}
WHERE ${w.whole} AND ${ad.kind} = ${scope.kind} AND ${ad.key} = ANY(${keys}) AND ${ad.market} = ${market} AND ${ad.unit} = 'publication' AND ${ad.day} >= ${wholeFrom} AND ${ad.day} < ${wholeTo}
UNION ALL
SELECT ${g.key}, 'gap', to_char(${g.gapStart} AT TIME ZONE 'UTC', ${GAP_TIME}), 0, 0, to_char(${g.gapEnd} AT TIME ZONE 'UTC', ${GAP_TIME}) FROM ${dimActivityGaps} ${g}
WHERE ${g.kind} = ${scope.kind} AND ${g.key} = ANY(${keys}) AND ${g.market} = ${market} AND ${g.unit} = 'publication' AND ${g.gapEnd} > ${start} AND ${g.gapStart} < ${end}
UNION ALL
SELECT NULL, 'frontier', to_char(${activityFrontier.hour} AT TIME ZONE 'UTC', ${GAP_TIME}), 0, 0, NULL FROM ${activityFrontier}`;
};

/**
 * Distinct publications active in each bucket per key, in the market as `distinctFromActivity`: the
 * same formula per bucket, with the marks summed cumulatively from the window's start.
 */
export async function publicationsFromActivity(
  db: Db,
  scope: DimScope,
  from: Date,
  to: Date,
  grain: Grain,
  market: string = ALL_MARKETS,
): Promise<Map<string, number[]>> {
  const list = buckets(from, to, grain);
  if (list.length === 0) return new Map(knownKeys(scope).map((k) => [k, []]));
  const start = list[0].from;
  const end = list[list.length - 1].to;
  // At day grain the whole days inside the window are read as day marks, the edge days as hours.
  const whole = list.filter((b) => b.wholeDay);
  const wholeFrom = whole.length ? whole[0].from : end;
  const wholeTo = whole.length ? whole[whole.length - 1].to : end;
  const iso = (d: Date) => d.toISOString();
  const rows = await sqlRows<{ key: string; part: string; at: string | null; starts: number; ends: number; gap_end: string | null }>(
    db,
    BUCKET_MARKS(scope, market, { start, end, whole: whole.length > 0, wholeFrom, wholeTo }),
  );
  // A mark belongs to the bucket containing its hour (or day): index it by the bucket's label.
  const label = (d: Date) => (grain === 'hour' ? iso(d).slice(0, 13) : iso(d).slice(0, 10));
  const index = new Map(list.map((b, i) => [label(b.from), i]));
  const bucketOf = (at: string) => index.get(grain === 'hour' ? at.slice(0, 13) : at.slice(0, 10))!;
  const out = new Map<string, number[]>();
  const state = new Map<string, { s0: number; e0: number; starts: number[]; ends: number[]; gaps: [Date, Date][] }>();
  const empty = () => ({ s0: 0, e0: 0, starts: list.map(() => 0), ends: list.map(() => 0), gaps: [] as [Date, Date][] });
  for (const key of knownKeys(scope)) state.set(key, empty());
  // No hull is active after the frontier, and open hulls carry no end mark: a bucket that starts after it holds nothing.
  let frontier = Number.NEGATIVE_INFINITY;
  for (const r of rows) {
    if (r.part === 'frontier') {
      frontier = new Date(r.at!).getTime();
      continue;
    }
    const st = entry(state, r.key, empty);
    if (r.part === 'base') {
      st.s0 = Number(r.starts);
      st.e0 = Number(r.ends);
    } else if (r.part === 'mark') {
      st.starts[bucketOf(r.at!)] += Number(r.starts);
      st.ends[bucketOf(r.at!)] += Number(r.ends);
    } else {
      st.gaps.push([new Date(r.at!), new Date(r.gap_end!)]);
    }
  }
  for (const [key, st] of state) {
    // Before bucket i: hulls started before its end, and hulls whose last hour lies before its start.
    let started = st.s0;
    let ended = st.e0;
    out.set(
      key,
      list.map((b, i) => {
        started += st.starts[i];
        const inside = st.gaps.filter(([gs, ge]) => gs <= b.from && ge >= b.to).length;
        const active = ceilHour(b.from).getTime() > frontier ? 0 : started - ended - inside;
        ended += st.ends[i];
        return active;
      }),
    );
  }
  return out;
}
