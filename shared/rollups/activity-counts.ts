// Distinct counts from the activity hulls (dim_activity*; docs/DATA.md "Why distinct counts stay exact"). An item
// is active in [F, T) when its hull overlaps the window and the window does not fall inside one of
// its gaps, so per key and unit:
//   active = #{first_hour < T} - #{last_hour < F} - #{gaps with gap_start <= F and gap_end >= T}
// (last_hour = end_hour - 1h, the hull's last active hour)
// The first two are sums of hull marks per day (whole days) and per hour (the edge day), the third
// a short index range: the work depends on keys and days, not on how many URLs a key has.
// The `*` hulls merge all markets and languages, so they answer scopes that cover every market with
// data and every language; the kinds kept per market (MARKET_KINDS) answer one market with every
// language from that market's hulls; `read.ts` falls back to url_spans for the others.
import type { Db } from '../db/client';
import { queryRows } from '../db/raw';
import { buckets, ceilHour, type Grain } from './buckets';
import { entry, keysParam, keysSql, knownKeys, type DimScope, type KeyDistinct } from './scope';
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

/**
 * How many hull marks (`starts` or `ends`) of the key `k.key`, the market `market` and `unit` lie
 * before the hour `bound`: whole days before its `day` (dim_activity_days), then its day's hours from
 * `dayStart`.
 */
const before = (col: 'starts' | 'ends', market: string, unit: string, day: string, dayStart: string, bound: string) => `(
    (SELECT coalesce(sum(${col}), 0) FROM dim_activity_days a
     WHERE a.kind = $1 AND a.key = k.key AND a.market = ${market} AND a.unit = ${unit} AND a.day < ${day}::date)
    + (SELECT coalesce(sum(${col}), 0) FROM dim_activity_hours a
       WHERE a.kind = $1 AND a.key = k.key AND a.market = ${market} AND a.unit = ${unit}
         AND a.hour >= ${dayStart}::timestamptz AND a.hour < ${bound}::timestamptz))`;

// $1 kind, $2 keys, $3 T's day, $4 T's day start, $5 T, $6 F's day, $7 F's day start, $8 F, $9 market.
const COUNTS = (keys: string, market: string) => `
WITH k AS (SELECT DISTINCT unnest(${keys}) AS key),
u AS (SELECT unnest(ARRAY['publication', 'publisher', 'trend']) AS unit),
counts AS (
  SELECT k.key, u.unit,
    ${before('starts', '$9', 'u.unit', '$3', '$4', '$5')}
    - ${before('ends', '$9', 'u.unit', '$6', '$7', '$8')}
    - (SELECT count(*) FROM dim_activity_gaps g
       WHERE g.kind = $1 AND g.key = k.key AND g.market = $9 AND g.unit = u.unit
         AND g.gap_end >= $5::timestamptz AND g.gap_start <= $8::timestamptz) AS n
  FROM k CROSS JOIN u),
-- Last seen: the end of the latest hour with impressions in the window, in the market (the
-- all-markets rows of dim_hours: country = language = '*'; a market's: its languages).
seen AS (
  SELECT k.key, h.hour + interval '1 hour' AS last_seen
  FROM k JOIN dim_keys dk ON dk.kind = $1 AND dk.key = k.key CROSS JOIN LATERAL (
    SELECT hour FROM dim_hours
    WHERE key_id = dk.id AND country = $9 ${market === ALL_MARKETS ? `AND language = '${ALL_MARKETS}'` : ''}
      AND hour >= $8::timestamptz AND hour < $5::timestamptz AND impressions > 0
    ORDER BY hour DESC LIMIT 1) h)
SELECT c.key,
  sum(n) FILTER (WHERE unit = 'publication')::int AS publications,
  sum(n) FILTER (WHERE unit = 'publisher')::int AS publishers,
  sum(n) FILTER (WHERE unit = 'trend')::int AS trends,
  s.last_seen
FROM counts c LEFT JOIN seen s USING (key)
GROUP BY c.key, s.last_seen`;

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
  const day = (d: Date) => dayStart(d).toISOString().slice(0, 10);
  const rows = await queryRows<{ key: string; publications: number; publishers: number; trends: number; last_seen: string | Date | null }>(
    db,
    COUNTS(keysSql(scope), market),
    [
      scope.kind,
      keysParam(scope),
      day(t),
      dayStart(t).toISOString(),
      t.toISOString(),
      day(f),
      dayStart(f).toISOString(),
      f.toISOString(),
      market,
    ],
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

// Per key, in the market $11: publications first seen before $3 and last seen before $3 (the
// window's start), the marks inside [$3, $4) (whole days from dim_activity_days when $5, else hours),
// and the gaps that overlap the window.
const BUCKET_MARKS = (keys: string) => `
WITH k AS (SELECT DISTINCT unnest(${keys}) AS key)
SELECT k.key, 'base' AS part, NULL::text AS at,
  ${before('starts', '$11', "'publication'", '$6', '$7', '$3')} AS starts,
  ${before('ends', '$11', "'publication'", '$6', '$7', '$3')} AS ends,
  NULL::text AS gap_end
FROM k
UNION ALL
SELECT a.key, 'mark', to_char(a.hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24'), a.starts, a.ends, NULL FROM dim_activity_hours a
WHERE a.kind = $1 AND a.key = ANY(${keys}) AND a.market = $11 AND a.unit = 'publication' AND a.hour >= $3::timestamptz AND a.hour < $4::timestamptz
  AND NOT ($5 AND (a.hour AT TIME ZONE 'UTC')::date >= $8::date AND (a.hour AT TIME ZONE 'UTC')::date < $9::date)
UNION ALL
SELECT a.key, 'mark', to_char(a.day, 'YYYY-MM-DD'), a.starts, a.ends, NULL FROM dim_activity_days a
WHERE $5 AND a.kind = $1 AND a.key = ANY(${keys}) AND a.market = $11 AND a.unit = 'publication' AND a.day >= $8::date AND a.day < $9::date
UNION ALL
SELECT g.key, 'gap', to_char(g.gap_start AT TIME ZONE 'UTC', $10), 0, 0, to_char(g.gap_end AT TIME ZONE 'UTC', $10) FROM dim_activity_gaps g
WHERE g.kind = $1 AND g.key = ANY(${keys}) AND g.market = $11 AND g.unit = 'publication' AND g.gap_end > $3::timestamptz AND g.gap_start < $4::timestamptz`;

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
  const rows = await queryRows<{ key: string; part: string; at: string | null; starts: number; ends: number; gap_end: string | null }>(
    db,
    BUCKET_MARKS(keysSql(scope)),
    [
      scope.kind,
      keysParam(scope),
      iso(start),
      iso(end),
      whole.length > 0,
      iso(dayStart(start)).slice(0, 10),
      iso(dayStart(start)),
      iso(wholeFrom).slice(0, 10),
      iso(wholeTo).slice(0, 10),
      'YYYY-MM-DD"T"HH24:MI:SS"Z"',
      market,
    ],
  );
  // A mark belongs to the bucket containing its hour (or day): index it by the bucket's label.
  const label = (d: Date) => (grain === 'hour' ? iso(d).slice(0, 13) : iso(d).slice(0, 10));
  const index = new Map(list.map((b, i) => [label(b.from), i]));
  const bucketOf = (at: string) => index.get(grain === 'hour' ? at.slice(0, 13) : at.slice(0, 10))!;
  const out = new Map<string, number[]>();
  const state = new Map<string, { s0: number; e0: number; starts: number[]; ends: number[]; gaps: [Date, Date][] }>();
  const empty = () => ({ s0: 0, e0: 0, starts: list.map(() => 0), ends: list.map(() => 0), gaps: [] as [Date, Date][] });
  for (const key of knownKeys(scope)) state.set(key, empty());
  for (const r of rows) {
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
        const active = started - ended - inside;
        ended += st.ends[i];
        return active;
      }),
    );
  }
  return out;
}
