// Keeps the dimension roll-ups exact at ingest (docs/DATA.md):
// 1. url_dimensions follows each touched URL's entities, categories, publisher and trends (mention
//    terms are linked by the lists' scans instead); a URL that
//    joins (leaves) a dimension adds (subtracts) all of its stored observations to that dimension.
// 2. every changed observation hour adds its delta (new - old) to the buckets of the URL's dimensions.
// 3. url_spans (activity runs) are recomputed for every touched URL-market.
// All three run inside the batch's transaction, after the article links and before nothing else
// reads them, so the roll-ups always equal a recomputation from observations.
import type { Queryable } from '../db/queryable';
import { ALL_MARKETS } from './activity-counts';

// Each delta also lands in the all-markets row of its key (country = language = '*', see
// ALL_MARKETS), which windows over every market and language read instead of one row per market.
// `agg` gives (key_id, country, language, hour, imp, ps): keys by their dim_keys numbers.
const BUCKET_UPSERT = (agg: string) => `
WITH per_market AS (${agg}),
agg AS (
  SELECT * FROM per_market
  UNION ALL SELECT key_id, '${ALL_MARKETS}', '${ALL_MARKETS}', hour, sum(imp), sum(ps) FROM per_market GROUP BY key_id, hour),
hours AS (
  INSERT INTO dim_hours (key_id, country, language, hour, impressions, position_sum)
  SELECT key_id, country, language, hour, imp, ps FROM agg
  ON CONFLICT (key_id, country, language, hour) DO UPDATE
    SET impressions = dim_hours.impressions + excluded.impressions, position_sum = dim_hours.position_sum + excluded.position_sum
  RETURNING 1)
INSERT INTO dim_days (key_id, country, language, day, impressions, position_sum)
SELECT key_id, country, language, (hour AT TIME ZONE 'UTC')::date, sum(imp), sum(ps) FROM agg
GROUP BY key_id, country, language, (hour AT TIME ZONE 'UTC')::date
ON CONFLICT (key_id, country, language, day) DO UPDATE
  SET impressions = dim_days.impressions + excluded.impressions, position_sum = dim_days.position_sum + excluded.position_sum`;

const SYNC_DIMENSIONS = `
WITH want AS (
  SELECT 'entity'::text AS kind, ae.entity_id::text AS key, ae.url_id FROM article_entities ae WHERE ae.url_id = ANY($1::uuid[])
  -- A URL tagged /A/B counts under /A and /A/B (shared/schemas/categories.ts: one hierarchy rule everywhere).
  UNION SELECT 'category', unnest(category_prefixes(ac.name)), ac.url_id FROM article_categories ac WHERE ac.url_id = ANY($1::uuid[])
  UNION SELECT 'publisher', a.domain, a.id FROM articles a WHERE a.id = ANY($1::uuid[])
  UNION SELECT 'trend', ta.trend_id::text, ta.url_id FROM trend_articles ta WHERE ta.url_id = ANY($1::uuid[])),
have AS MATERIALIZED (
  SELECT kind, key, url_id FROM url_dimensions WHERE url_id = ANY($1::uuid[]) AND kind <> 'term'),
added AS (SELECT * FROM want EXCEPT SELECT * FROM have),
removed AS (SELECT * FROM have EXCEPT SELECT * FROM want),
ins AS (INSERT INTO url_dimensions (kind, key, url_id) SELECT kind, key, url_id FROM added RETURNING 1),
del AS (DELETE FROM url_dimensions d USING removed r WHERE (d.kind, d.key, d.url_id) = (r.kind, r.key, r.url_id) RETURNING 1)
SELECT kind, key, url_id::text AS url_id, 1 AS sign FROM added
UNION ALL SELECT kind, key, url_id::text, -1 FROM removed`;

// A key is numbered when its first URL joins it, before its buckets are backfilled: every key of
// url_dimensions has its number, so the deltas below find it. A statement of its own, so that the
// next one sees a number another transaction gave meanwhile (this one waited for it to commit).
const NUMBER_KEYS = `INSERT INTO dim_keys (kind, key) SELECT DISTINCT kind, key FROM unnest($1::text[], $2::text[]) AS m(kind, key)
  ON CONFLICT (kind, key) DO NOTHING`;

const BACKFILL = BUCKET_UPSERT(`
  SELECT k.id AS key_id, o.country, o.language, o.hour,
         sum(m.sign * o.impressions)::int8 AS imp, sum(m.sign * o.impressions::float8 * o.position) AS ps
  FROM unnest($1::text[], $2::text[], $3::uuid[], $4::int[]) AS m(kind, key, url_id, sign)
  JOIN dim_keys k ON k.kind = m.kind AND k.key = m.key
  JOIN observations o ON o.url_id = m.url_id
  -- Restates the join as an index condition: without it the planner joined the whole table per batch.
  WHERE o.url_id = ANY($3::uuid[])
  GROUP BY k.id, o.country, o.language, o.hour`);

const APPLY_DELTAS = BUCKET_UPSERT(`
  SELECT k.id AS key_id, x.country, x.language, x.hour, sum(x.imp)::int8 AS imp, sum(x.ps) AS ps
  FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::int8[], $6::float8[]) AS x(url_id, country, language, hour, imp, ps)
  JOIN (SELECT * FROM url_dimensions WHERE url_id = ANY($7::uuid[])) d ON d.url_id = x.url_id
  JOIN dim_keys k ON k.kind = d.kind AND k.key = d.key
  GROUP BY k.id, x.country, x.language, x.hour`);

// Gaps and islands: consecutive active hours share (hour - row_number hours).
const KEYS = `k AS (SELECT DISTINCT * FROM unnest($1::uuid[], $2::text[], $3::text[]) AS k(url_id, country, language))`;
// Two statements: a CTE's DELETE and the INSERT of the same keys would share one snapshot.
const CLEAR_SPANS = `WITH ${KEYS}
DELETE FROM url_spans s USING k WHERE (s.url_id, s.country, s.language) = (k.url_id, k.country, k.language) AND s.url_id = ANY($4::uuid[])`;
// Profiles that lost an active hour ($1-$3 of the statement below: an hour corrected to zero) are
// recomputed from their observations; the others only gained hours (MERGE_SPANS).
const RECOMPUTE_SPANS = `
WITH ${KEYS},
active AS (
  SELECT o.url_id, o.country, o.language, o.hour,
         o.hour - row_number() OVER (PARTITION BY o.url_id, o.country, o.language ORDER BY o.hour) * interval '1 hour' AS grp
  FROM observations o JOIN k ON (o.url_id, o.country, o.language) = (k.url_id, k.country, k.language)
  WHERE o.url_id = ANY($4::uuid[]) AND o.impressions > 0)
INSERT INTO url_spans (url_id, country, language, start_hour, end_hour)
SELECT url_id, country, language, min(hour), max(hour) + interval '1 hour' FROM active
GROUP BY url_id, country, language, grp`;
/**
 * A profile that only gained hours ($1-$4: each newly active hour) keeps its old spans (spans_before)
 * with the new hours merged in: intervals that overlap or touch become one. It reads the profile's
 * spans, never its observations, so it costs the same however long the profile has been seen.
 * $5-$7: the profiles recomputed instead (RECOMPUTE_SPANS), left out here.
 */
const MERGE_SPANS = `
WITH lost AS (SELECT DISTINCT * FROM unnest($5::uuid[], $6::text[], $7::text[]) AS l(url_id, country, language)),
iv AS (
  SELECT s.url_id, s.country, s.language, s.start_hour, s.end_hour FROM spans_before s
  WHERE NOT EXISTS (SELECT 1 FROM lost l WHERE (l.url_id, l.country, l.language) = (s.url_id, s.country, s.language))
  UNION ALL
  SELECT g.url_id, g.country, g.language, g.hour, g.hour + interval '1 hour'
  FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[]) AS g(url_id, country, language, hour)),
reach AS (
  SELECT *, max(end_hour) OVER (PARTITION BY url_id, country, language ORDER BY start_hour, end_hour
    ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach FROM iv),
runs AS (
  SELECT *, count(*) FILTER (WHERE reach IS NULL OR start_hour > reach) OVER (PARTITION BY url_id, country, language
    ORDER BY start_hour, end_hour ROWS UNBOUNDED PRECEDING) AS run FROM reach)
INSERT INTO url_spans (url_id, country, language, start_hour, end_hour)
SELECT url_id, country, language, min(start_hour), max(end_hour) FROM runs
GROUP BY url_id, country, language, run`;

export interface MembershipChange {
  kind: string;
  key: string;
  url_id: string;
  sign: number;
}

/**
 * Adds (sign 1) or subtracts (-1) all stored observations of each URL to the buckets of a dimension
 * it joined or left, numbering the keys first (dim_keys).
 */
export async function backfillBuckets(db: Queryable, changes: MembershipChange[]): Promise<void> {
  if (changes.length === 0) return;
  const [kinds, keys] = [changes.map((c) => c.kind), changes.map((c) => c.key)];
  await db.query(NUMBER_KEYS, [kinds, keys]);
  await db.query(BACKFILL, [kinds, keys, changes.map((c) => c.url_id), changes.map((c) => c.sign)]);
}

/** Brings url_dimensions in line with the URLs' current links and backfills their buckets. */
export async function syncDimensions(db: Queryable, urlIds: string[]): Promise<MembershipChange[]> {
  if (urlIds.length === 0) return [];
  const { rows } = await db.query<MembershipChange>(SYNC_DIMENSIONS, [urlIds]);
  await backfillBuckets(db, rows);
  return rows;
}

export interface HourDelta {
  url_id: string;
  country: string;
  language: string;
  /** ISO 8601 in UTC (toISOString): its first 10 characters are the UTC day, the partition it goes to. */
  hour: string;
  impressions: number;
  /** impressions x position, new minus old. */
  position_sum: number;
}

/**
 * dim_hours is partitioned by UTC day (drizzle/0024): the partitions of every day of observations,
 * created where missing, before the rebuild writes their hours.
 */
export const OBSERVATION_DAYS = `SELECT dim_hours_days(array(
  SELECT generate_series((min(hour) AT TIME ZONE 'UTC')::date, (max(hour) AT TIME ZONE 'UTC')::date, interval '1 day')::date FROM observations))`;

/** Adds changed hours to the buckets of every dimension the URL belongs to (their days' partitions created first). */
export async function applyHourDeltas(db: Queryable, deltas: HourDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  await db.query('SELECT dim_hours_days($1::date[])', [[...new Set(deltas.map((d) => d.hour.slice(0, 10)))]]);
  await db.query(APPLY_DELTAS, [
    deltas.map((d) => d.url_id),
    deltas.map((d) => d.country),
    deltas.map((d) => d.language),
    deltas.map((d) => d.hour),
    deltas.map((d) => d.impressions),
    deltas.map((d) => d.position_sum),
    [...new Set(deltas.map((d) => d.url_id))],
  ]);
}

// Which URL-markets lost activity: an old span no longer inside one new span (an hour corrected
// to zero impressions). Their lost hours are saved (SAVE_LOST) for their activity groups to be cut.
const SAVE_SPANS = `CREATE TEMP TABLE spans_before ON COMMIT DROP AS WITH ${KEYS}
SELECT s.url_id, s.country, s.language, s.start_hour, s.end_hour FROM url_spans s JOIN k USING (url_id, country, language) WHERE s.url_id = ANY($4::uuid[])`;
const SAVE_NEW_SPANS = `CREATE TEMP TABLE spans_after ON COMMIT DROP AS WITH ${KEYS}
SELECT s.url_id, s.country, s.language, s.start_hour, s.end_hour FROM url_spans s JOIN k USING (url_id, country, language) WHERE s.url_id = ANY($4::uuid[])`;
const LOST_SPANS = `SELECT DISTINCT o.url_id::text AS url_id FROM spans_before o
WHERE NOT EXISTS (SELECT 1 FROM url_spans n WHERE (n.url_id, n.country, n.language) = (o.url_id, o.country, o.language)
  AND n.start_hour <= o.start_hour AND n.end_hour >= o.end_hour AND n.url_id = o.url_id)`;

/**
 * The hours each URL-market gained, as intervals: every new span minus the old spans inside it.
 * Merging only these into the URL's activity groups is exact when nothing was lost (the old spans
 * are already in the groups' runs), and a new hour after a group's end can then be appended without
 * reading the group's gaps (write-activity.ts). Appended to `spans_added` (see ADDED_TABLE).
 */
const SAVE_ADDED = `
INSERT INTO spans_added (url_id, country, start_hour, end_hour)
WITH p AS (
  SELECT n.url_id, n.country, n.start_hour AS ns, n.end_hour AS ne, o.start_hour AS os,
    lag(o.end_hour) OVER w AS prev_oe,
    max(o.end_hour) OVER (PARTITION BY n.url_id, n.country, n.language, n.start_hour) AS last_oe
  FROM spans_after n LEFT JOIN spans_before o ON o.url_id = n.url_id AND o.country = n.country AND o.language = n.language
    AND o.start_hour >= n.start_hour AND o.end_hour <= n.end_hour
  WINDOW w AS (PARTITION BY n.url_id, n.country, n.language, n.start_hour ORDER BY o.start_hour))
SELECT url_id, country, coalesce(prev_oe, ns), os FROM p WHERE os > coalesce(prev_oe, ns)
UNION SELECT url_id, country, coalesce(last_oe, ns), ne FROM p WHERE coalesce(last_oe, ns) < ne`;

/** Hours gained by URL-markets in this transaction, with their market (ON COMMIT DROP; read by refreshActivity). */
export const ADDED_TABLE = `CREATE TEMP TABLE IF NOT EXISTS spans_added (url_id uuid, country text, start_hour timestamptz, end_hour timestamptz) ON COMMIT DROP`;

/** Hours that URLs ($1) were active in before and no longer are, in a language of the market (ON COMMIT DROP; read by refreshActivity). */
export const LOST_TABLE = `CREATE TEMP TABLE IF NOT EXISTS spans_lost (url_id uuid, country text, hour timestamptz) ON COMMIT DROP`;
const SAVE_LOST = `
INSERT INTO spans_lost (url_id, country, hour)
SELECT DISTINCT o.url_id, o.country, h.hour FROM spans_before o
CROSS JOIN LATERAL generate_series(o.start_hour, o.end_hour - interval '1 hour', interval '1 hour') AS h(hour)
WHERE o.url_id = ANY($1::uuid[]) AND NOT EXISTS (
  SELECT 1 FROM spans_after n WHERE n.url_id = o.url_id AND n.country = o.country AND n.language = o.language
    AND n.start_hour <= h.hour AND n.end_hour > h.hour)`;

/** An hour of a profile whose impressions changed: now, and before (null: not stored). */
export interface SpanChange {
  url_id: string;
  country: string;
  language: string;
  hour: string;
  impressions: number;
  old_impressions: number | null;
}

const profileKey = (c: SpanChange) => `${c.url_id}|${c.country}|${c.language}`;
const profileParams = (keys: readonly SpanChange[]) => [
  keys.map((k) => k.url_id),
  keys.map((k) => k.country),
  keys.map((k) => k.language),
  [...new Set(keys.map((k) => k.url_id))],
];

/**
 * Brings the spans of the changed profiles up to date: a profile that lost an active hour is
 * recomputed from its observations, the others merge their newly active hours into their spans.
 * Returns the URLs that lost activity (see LOST_SPANS), their lost hours in spans_lost.
 */
export async function recomputeSpans(db: Queryable, changes: readonly SpanChange[]): Promise<string[]> {
  if (changes.length === 0) return [];
  const byProfile = new Map(changes.map((c) => [profileKey(c), c]));
  const keys = [...byProfile.values()];
  const lostKeys = new Set(changes.filter((c) => c.impressions <= 0 && Number(c.old_impressions ?? 0) > 0).map(profileKey));
  const gained = changes.filter((c) => c.impressions > 0 && Number(c.old_impressions ?? 0) <= 0 && !lostKeys.has(profileKey(c)));
  const recomputed = keys.filter((k) => lostKeys.has(profileKey(k)));
  const params = profileParams(keys);
  await db.query(SAVE_SPANS, params);
  await db.query(CLEAR_SPANS, params);
  const lostParams = profileParams(recomputed);
  const [lu, lc, ll] = lostParams;
  await db.query(MERGE_SPANS, [
    gained.map((g) => g.url_id),
    gained.map((g) => g.country),
    gained.map((g) => g.language),
    gained.map((g) => g.hour),
    lu,
    lc,
    ll,
  ]);
  if (recomputed.length) await db.query(RECOMPUTE_SPANS, lostParams);
  const { rows } = await db.query<{ url_id: string }>(LOST_SPANS);
  await db.query(SAVE_NEW_SPANS, params);
  await db.query(ADDED_TABLE);
  // Both sides are temp tables of the same keys: a join the planner must hash, not loop (seq scans
  // are switched off in batches, shared/ingest/write/batch.ts).
  const {
    rows: [setting],
  } = await db.query<{ prev: string }>(`SELECT current_setting('enable_seqscan') AS prev, set_config('enable_seqscan', 'on', true)`);
  await db.query(SAVE_ADDED);
  const lost = rows.map((r) => r.url_id);
  if (lost.length) {
    await db.query(LOST_TABLE);
    await db.query(SAVE_LOST, [lost]);
  }
  await db.query(`SELECT set_config('enable_seqscan', $1, true)`, [setting?.prev ?? 'on']);
  await db.query('DROP TABLE spans_before, spans_after');
  return lost;
}
