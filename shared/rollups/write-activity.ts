// Incremental maintenance of the activity hulls (dim_activity, _gaps, _hours, _days) after a batch
// or a mention scan, exact and proportional to what changed (docs/DATA.md "Why distinct counts stay exact").
//
// A group's runs are the union of its URLs' spans, so a URL whose activity only GREW (new hours, a
// new membership) can be merged into the stored runs of its groups: new runs = old runs (rebuilt
// from the hull and its gaps) united with the hours it gained (all its spans for a new membership).
// Union is idempotent, so merging hours that were already counted changes nothing. When every new
// hour of a group lies after its hull (each hour of live data), the stored runs are one interval to
// the merge and the group's gaps are not even read. A URL that LOST hours (an hour corrected to zero
// impressions) cannot be subtracted from a union, but each lost hour can be checked: a group keeps
// it while another member is still active then (one index probe finds one), and the hours no member
// covers any more are cut out of the group's runs. A URL that left a dimension loses all of its hours
// there: every group it belonged to, before or after the batch, is recomputed whole from its members'
// spans, and those groups are left out of the merge. The paths write through temp tables, never
// joined to each other on their correlated group columns beyond a single join or anti-join: such
// joins are estimated at one row, and the nested loops built on that estimate took minutes for an hour
// of lines (docs/BENCHMARKS.md "Ingest"; an anti-join is estimated at its whole outer side, which is safe).
import type { Queryable } from '../db/queryable';
import { GROUP, GROUP_PARTITION, gapsOf, hullsOf, keptPerMarket, marksOf, mergeRuns, spanMarkets, storedEnd } from './write-hulls';
import { ALL_MARKETS } from './activity-counts';
import { ADDED_TABLE, LOST_TABLE } from './write';

export interface RemovedMembership {
  kind: string;
  key: string;
  url_id: string;
}

const SAME_GROUP = (a: string, b: string) =>
  `(${a}.kind, ${a}.key, ${a}.market, ${a}.unit, ${a}.item) = (${b}.kind, ${b}.key, ${b}.market, ${b}.unit, ${b}.item)`;

/**
 * The groups to recompute whole: every (key, market, unit, item) that a URL of $1 (one that left a
 * dimension) belongs to, with its current memberships and those just removed ($2-$4), in every market
 * and, for `MARKET_KINDS`, in each market it was ever seen in (url_profiles: a market where it lost
 * all activity has no span left). `item_url` is the URL of a publication group.
 */
const FULL_GROUPS = `
CREATE TEMP TABLE act_groups ON COMMIT DROP AS
WITH mem AS (
  SELECT kind, key, url_id FROM url_dimensions WHERE url_id = ANY($1::uuid[])
  UNION SELECT * FROM unnest($2::text[], $3::text[], $4::uuid[]) AS r(kind, key, url_id)),
own AS (
  SELECT url_id, 'publication'::text AS unit, url_id::text AS item, url_id AS item_url FROM unnest($1::uuid[]) AS t(url_id)
  UNION SELECT url_id, kind, key, NULL::uuid FROM mem WHERE kind IN ('publisher', 'trend'))
SELECT DISTINCT m.kind, m.key, mk.market, o.unit, o.item, o.item_url, true AS whole, NULL::timestamptz AS merged_from, NULL::timestamptz AS merged_to, 0::int8 AS merged_n
FROM mem m JOIN own o USING (url_id)
CROSS JOIN LATERAL (
  SELECT '${ALL_MARKETS}'::text AS market
  UNION ALL SELECT DISTINCT p.country FROM url_profiles p
  WHERE p.url_id = m.url_id AND ${keptPerMarket('m.kind')}) mk
WHERE NOT (m.kind = 'publisher' AND o.unit = 'publisher')`;

/**
 * What URLs ($1) bring to each of their groups, in each market it counts in: the rows of `source`
 * (url_id, country, ...), one per group and distinct `columns`.
 */
const perGroup = (source: string, columns: string) => `
WITH mem AS MATERIALIZED (SELECT kind, key, url_id FROM url_dimensions WHERE url_id = ANY($1::uuid[])),
own AS (
  SELECT url_id, 'publication'::text AS unit, url_id::text AS item FROM unnest($1::uuid[]) AS t(url_id)
  UNION ALL SELECT url_id, kind, key FROM mem WHERE kind IN ('publisher', 'trend')),
sp AS MATERIALIZED (${source})
SELECT DISTINCT m.kind, m.key, mk.market, o.unit, o.item, ${columns}
FROM mem m JOIN own o USING (url_id) JOIN sp USING (url_id) ${spanMarkets('m.kind', 'sp.country')}
WHERE NOT (m.kind = 'publisher' AND o.unit = 'publisher') AND mk.market IS NOT NULL`;

/**
 * The spans that URLs bring to their groups ($1: every URL): the hours that grown URLs ($2) gained in
 * this transaction (spans_added, write.ts), every span of URLs that joined a dimension ($3).
 */
const CONTRIBUTIONS = `CREATE TEMP TABLE act_contrib ON COMMIT DROP AS ${perGroup(
  `SELECT url_id, country, start_hour, end_hour FROM spans_added WHERE url_id = ANY($2::uuid[])
   UNION ALL SELECT url_id, country, start_hour, end_hour FROM url_spans WHERE url_id = ANY($3::uuid[])`,
  'sp.start_hour, sp.end_hour',
)}`;

/** The hours that URLs ($1) lost in this transaction (spans_lost, write.ts), in each of their groups. */
const LOST_HOURS = `CREATE TEMP TABLE act_lost ON COMMIT DROP AS ${perGroup('SELECT url_id, country, hour FROM spans_lost', 'sp.hour')}`;

/** A span `s` counts in the group `g`'s market. */
const IN_MARKET = (g = 'g') => `(${g}.market = '${ALL_MARKETS}' OR s.country = ${g}.market)`;

/**
 * The holes to cut out of groups' runs: lost hours that no member of the group covers any more, as
 * intervals. Each lost hour looks for one member span that covers it (LIMIT 1: probed per row through
 * the keys, so a busy group answers at its first active member instead of reading all of them).
 */
const HOLES = `
CREATE TEMP TABLE act_holes ON COMMIT DROP AS
SELECT ${GROUP}, min(hour) AS hole_start, max(hour) + interval '1 hour' AS hole_end FROM (
  SELECT ${GROUP}, hour, hour - row_number() OVER (PARTITION BY ${GROUP_PARTITION} ORDER BY hour) * interval '1 hour' AS grp
  FROM act_lost c
  WHERE NOT EXISTS (
    SELECT 1 FROM url_spans s
    WHERE c.unit = 'publication' AND s.url_id = c.item::uuid AND ${IN_MARKET('c')} AND s.start_hour <= c.hour AND s.end_hour > c.hour
    UNION ALL
    SELECT 1 FROM url_dimensions x
    JOIN url_dimensions d ON d.kind = c.kind AND d.key = c.key AND d.url_id = x.url_id
    JOIN url_spans s ON s.url_id = x.url_id AND ${IN_MARKET('c')} AND s.start_hour <= c.hour AND s.end_hour > c.hour
    WHERE c.unit <> 'publication' AND x.kind = c.unit AND x.key = c.item
    LIMIT 1)) u
GROUP BY ${GROUP}, grp`;

/**
 * The merged groups: every group with contributions or holes (those of whole groups were dropped
 * before, DROP_WHOLE), with the span of what is merged into it and how many rows (a hole counts from
 * -infinity).
 */
const MERGED_GROUPS = `
INSERT INTO act_groups (${GROUP}, item_url, whole, merged_from, merged_to, merged_n)
SELECT ${GROUP}, NULL::uuid, false, min(s), max(e), count(*) FROM (
  SELECT ${GROUP}, start_hour AS s, end_hour AS e FROM act_contrib
  UNION ALL SELECT ${GROUP}, '-infinity'::timestamptz, NULL FROM act_holes) c
GROUP BY ${GROUP}`;

/** Contributions to and lost hours of groups that are recomputed whole are not merged (run only when there are such groups). */
const DROP_WHOLE = ['act_contrib', 'act_lost'].map(
  (t) => `DELETE FROM ${t} c USING act_groups g WHERE g.whole AND ${SAME_GROUP('c', 'g')}`,
);

/**
 * The stored hulls of every group, and whether a merged group is `general`: a contribution starts
 * before its hull ends, or it has holes (merged_from). Otherwise every new hour lies after the hull
 * (the hourly case) and is appended: the stored runs stand in as one interval [first_hour, end_hour),
 * whose inner gaps cannot change, so the group's gaps are not read. Gaps are read for general and
 * whole groups only. An appended group with one contribution is `simple`: its new hull and gap follow
 * from the two intervals (STEPS), without merging runs. An open hull (`stored_end` NULL) ends after
 * the frontier the batch found ($1).
 */
const OLD = (moved: boolean) => [
  `CREATE TEMP TABLE act_old ON COMMIT DROP AS
   SELECT o.*, coalesce(o.merged_from < o.end_hour, false) AS general, NOT o.whole AND o.merged_from >= o.end_hour AND o.merged_n = 1 AS simple
   FROM (${
     moved
       ? `SELECT ${GROUP}, open_first AS first_hour, NULL::timestamptz AS stored_end, $1::timestamptz + interval '1 hour' AS end_hour,
            whole, merged_n, merged_from, merged_to
          FROM act_state WHERE touched AND open_first IS NOT NULL
          UNION ALL
          SELECT a.kind, a.key, a.market, a.unit, a.item, a.first_hour, a.end_hour, a.end_hour, s.whole, s.merged_n, s.merged_from, s.merged_to
          FROM act_state s JOIN dim_activity a USING (${GROUP}) WHERE s.touched AND s.open_first IS NULL`
       : `SELECT a.kind, a.key, a.market, a.unit, a.item, a.first_hour, a.end_hour AS stored_end,
            coalesce(a.end_hour, $1::timestamptz + interval '1 hour') AS end_hour, g.whole, g.merged_n, g.merged_from, g.merged_to
          FROM act_groups g JOIN dim_activity a USING (${GROUP})`
   }) o`,
  // LATERAL in primary-key order: joined plainly, the planner probed the (kind, key, unit, gap_end)
  // index and filtered on item, ~90 rows read per group.
  `CREATE TEMP TABLE act_old_gaps ON COMMIT DROP AS
   SELECT o.kind, o.key, o.market, o.unit, o.item, x.gap_start, x.gap_end, o.whole FROM act_old o CROSS JOIN LATERAL (
     SELECT x.gap_start, x.gap_end FROM dim_activity_gaps x
     WHERE x.kind = o.kind AND x.key = o.key AND x.market = o.market AND x.unit = o.unit AND x.item = o.item
     ORDER BY x.kind, x.key, x.market, x.unit, x.item, x.gap_start) x
   WHERE o.whole OR o.general`,
];

/** A merged group's stored runs, from its hull and gaps: starts and ends alternate in time. */
const STORED_RUNS = `
SELECT ${GROUP}, t AS start_hour, e AS end_hour FROM (
  SELECT ${GROUP}, t, is_end, lead(t) OVER (PARTITION BY ${GROUP_PARTITION} ORDER BY t) AS e FROM (
    SELECT ${GROUP}, first_hour AS t, false AS is_end FROM act_old WHERE NOT whole AND general
    UNION ALL SELECT ${GROUP}, end_hour, true FROM act_old WHERE NOT whole AND general
    UNION ALL SELECT ${GROUP}, gap_end, false FROM act_old_gaps WHERE NOT whole
    UNION ALL SELECT ${GROUP}, gap_start, true FROM act_old_gaps WHERE NOT whole) b) r
WHERE NOT is_end`;

/**
 * CTEs that cut the holes (`holes`: GROUP, hole_start, hole_end) out of the runs in `runs` (GROUP, s, e),
 * then the SELECT of every run. Each hole is clipped to the runs it overlaps (a URL that joined a group
 * in the same batch may have lost hours the group never had); inside a run, its start and end and the
 * clipped holes' ends and starts alternate in time, so each start pairs with the next point.
 */
const cutRuns = (runs: string, holes: string) => `
cut_groups AS (SELECT DISTINCT ${GROUP} FROM ${holes}),
cut AS (SELECT r.* FROM ${runs} r WHERE EXISTS (SELECT 1 FROM cut_groups h WHERE ${SAME_GROUP('h', 'r')})),
clipped AS (
  SELECT h.kind, h.key, h.market, h.unit, h.item, greatest(h.hole_start, r.s) AS hs, least(h.hole_end, r.e) AS he
  FROM ${holes} h JOIN cut r ON ${SAME_GROUP('h', 'r')} AND r.s < h.hole_end AND r.e > h.hole_start),
points AS (
  SELECT ${GROUP}, s AS t, false AS is_end FROM cut
  UNION ALL SELECT ${GROUP}, e, true FROM cut
  UNION ALL SELECT ${GROUP}, hs, true FROM clipped
  UNION ALL SELECT ${GROUP}, he, false FROM clipped),
pieces AS (SELECT ${GROUP}, t, is_end, lead(t) OVER (PARTITION BY ${GROUP_PARTITION} ORDER BY t, is_end) AS nxt FROM points)
SELECT r.* FROM ${runs} r WHERE NOT EXISTS (SELECT 1 FROM cut_groups h WHERE ${SAME_GROUP('h', 'r')})
UNION ALL SELECT ${GROUP}, t AS s, nxt AS e FROM pieces WHERE NOT is_end AND t < nxt`;

/** The groups' new runs; `cut` when act_holes has rows (otherwise the runs are not read twice). */
const NEW_RUNS = (cut: boolean) => `
CREATE TEMP TABLE act_runs ON COMMIT DROP AS
WITH spans AS (
  SELECT g.kind, g.key, g.market, g.unit, g.item, s.start_hour, s.end_hour FROM act_groups g
  JOIN url_dimensions d ON d.kind = g.kind AND d.key = g.key AND d.url_id = g.item_url
  JOIN url_spans s ON s.url_id = d.url_id AND ${IN_MARKET()}
  WHERE g.whole AND g.unit = 'publication'
  UNION ALL
  SELECT g.kind, g.key, g.market, g.unit, g.item, s.start_hour, s.end_hour FROM act_groups g
  JOIN url_dimensions x ON x.kind = g.unit AND x.key = g.item
  JOIN url_dimensions d ON d.kind = g.kind AND d.key = g.key AND d.url_id = x.url_id
  JOIN url_spans s ON s.url_id = d.url_id AND ${IN_MARKET()}
  WHERE g.whole AND g.unit <> 'publication'
  UNION ALL
  SELECT ${GROUP}, start_hour, end_hour FROM act_contrib c WHERE NOT EXISTS (SELECT 1 FROM act_old o WHERE o.simple AND ${SAME_GROUP('o', 'c')})
  UNION ALL SELECT ${GROUP}, first_hour, end_hour FROM act_old WHERE NOT whole AND NOT general AND NOT simple
  UNION ALL ${STORED_RUNS}),
${mergeRuns('spans')}${cut ? `,${cutRuns('runs', 'act_holes')}` : ' SELECT * FROM runs'}`;

// What changed, as set differences (EXCEPT hashes whole rows). Joins between these tables on their
// group columns are estimated at one row (the columns are correlated), which once sent a gap delete
// into a nested loop over 24k x 12k rows (docs/BENCHMARKS.md "Ingest"); the statements below join a temp
// table to a stored table by its primary key only.
// act_hulls holds the new hulls as stored: open (end NULL) when they end after the batch's frontier ($1).
const STEPS = [
  `CREATE TEMP TABLE act_hulls ON COMMIT DROP AS SELECT ${GROUP}, first_hour, ${storedEnd('end_hour', '$1::timestamptz')} AS end_hour FROM (
     ${hullsOf('act_runs')} UNION ALL SELECT ${GROUP}, first_hour, merged_to FROM act_old WHERE simple) h`,
  `CREATE TEMP TABLE act_gaps ON COMMIT DROP AS ${gapsOf('act_runs')}
   UNION ALL SELECT ${GROUP}, end_hour, merged_from FROM act_old WHERE simple AND merged_from > end_hour`,
  `CREATE TEMP TABLE act_put ON COMMIT DROP AS
   SELECT ${GROUP}, first_hour, end_hour FROM act_hulls EXCEPT SELECT ${GROUP}, first_hour, stored_end FROM act_old`,
  `CREATE TEMP TABLE act_replaced ON COMMIT DROP AS
   SELECT ${GROUP}, first_hour, stored_end AS end_hour FROM act_old EXCEPT SELECT ${GROUP}, first_hour, end_hour FROM act_hulls`,
  `CREATE TEMP TABLE act_gone ON COMMIT DROP AS SELECT ${GROUP} FROM act_old EXCEPT SELECT ${GROUP} FROM act_hulls`,
  `CREATE TEMP TABLE act_gaps_del ON COMMIT DROP AS
   SELECT ${GROUP}, gap_start, gap_end FROM act_old_gaps EXCEPT SELECT ${GROUP}, gap_start, gap_end FROM act_gaps`,
  `CREATE TEMP TABLE act_gaps_put ON COMMIT DROP AS
   SELECT ${GROUP}, gap_start, gap_end FROM act_gaps EXCEPT SELECT ${GROUP}, gap_start, gap_end FROM act_old_gaps`,
];

/**
 * When the frontier moved, the open hulls (dim_activity_open) are read once, beside the
 * batch's groups and without a join (one hashed GROUP BY; act_groups has one row per group): a touched
 * open group takes its hull from here instead of a probe of dim_activity (OLD), an untouched one closes (CLOSE).
 */
const STATE = `
CREATE TEMP TABLE act_state ON COMMIT DROP AS
SELECT ${GROUP}, bool_or(touched) AS touched, max(open_first) AS open_first, bool_or(whole) AS whole,
  max(merged_n) AS merged_n, min(merged_from) AS merged_from, max(merged_to) AS merged_to
FROM (
  SELECT ${GROUP}, true AS touched, NULL::timestamptz AS open_first, whole, merged_n, merged_from, merged_to FROM act_groups
  UNION ALL SELECT ${GROUP}, false, first_hour, NULL, NULL, NULL, NULL FROM dim_activity_open) u
GROUP BY ${GROUP}`;

/**
 * The open hulls of groups the batch did not touch close ($1: the old frontier): they end after it and gain
 * their end mark (put), replacing their open form (replaced).
 */
const CLOSE = [
  `INSERT INTO act_put SELECT ${GROUP}, open_first, $1::timestamptz + interval '1 hour' FROM act_state WHERE NOT touched`,
  `INSERT INTO act_replaced SELECT ${GROUP}, open_first, NULL FROM act_state WHERE NOT touched`,
];

// Marks: the new hull of every group whose hull changed counts +1, the replaced one -1.
const MARKS = `
WITH delta AS MATERIALIZED (
  SELECT kind, key, market, unit, hour, sum(starts)::int AS starts, sum(ends)::int AS ends FROM (${marksOf('act_put', 1)}
    UNION ALL ${marksOf('act_replaced', -1)}) m
  GROUP BY kind, key, market, unit, hour
  HAVING sum(starts) <> 0 OR sum(ends) <> 0),
hours AS (
  INSERT INTO dim_activity_hours (kind, key, market, unit, hour, starts, ends) SELECT * FROM delta
  ON CONFLICT (kind, key, market, unit, hour) DO UPDATE
    SET starts = dim_activity_hours.starts + excluded.starts, ends = dim_activity_hours.ends + excluded.ends
  RETURNING kind, key, market, unit, hour::text AS at, starts, ends),
days AS (
  INSERT INTO dim_activity_days (kind, key, market, unit, day, starts, ends)
  SELECT kind, key, market, unit, (hour AT TIME ZONE 'UTC')::date, sum(starts), sum(ends) FROM delta GROUP BY 1, 2, 3, 4, 5
  HAVING sum(starts) <> 0 OR sum(ends) <> 0
  ON CONFLICT (kind, key, market, unit, day) DO UPDATE
    SET starts = dim_activity_days.starts + excluded.starts, ends = dim_activity_days.ends + excluded.ends
  RETURNING kind, key, market, unit, day::text AS at, starts, ends)
SELECT 'hours' AS tbl, kind, key, market, unit, at FROM hours WHERE starts = 0 AND ends = 0
UNION ALL SELECT 'days', kind, key, market, unit, at FROM days WHERE starts = 0 AND ends = 0`;

const WRITES = [
  `INSERT INTO dim_activity (${GROUP}, first_hour, end_hour) SELECT * FROM act_put
   ON CONFLICT (${GROUP}) DO UPDATE SET first_hour = excluded.first_hour, end_hour = excluded.end_hour`,
  `DELETE FROM dim_activity a USING act_gone o WHERE ${SAME_GROUP('a', 'o')}`,
  // dim_activity_open follows: a hull that was open leaves it (replaced or gone), one that is open now enters it.
  `DELETE FROM dim_activity_open x USING act_replaced r WHERE r.end_hour IS NULL AND ${SAME_GROUP('x', 'r')}`,
  `INSERT INTO dim_activity_open (${GROUP}, first_hour) SELECT ${GROUP}, first_hour FROM act_put WHERE end_hour IS NULL`,
  `DELETE FROM dim_activity_gaps x USING act_gaps_del d WHERE ${SAME_GROUP('x', 'd')} AND x.gap_start = d.gap_start`,
  `INSERT INTO dim_activity_gaps (${GROUP}, gap_start, gap_end) SELECT * FROM act_gaps_put`,
  `DROP TABLE act_groups, act_contrib, act_lost, act_holes, act_old, act_old_gaps, act_runs, act_hulls, act_gaps, act_put, act_replaced, act_gone, act_gaps_del, act_gaps_put`,
  'DROP TABLE IF EXISTS act_state, spans_added, spans_lost',
];

// Marks that fell back to zero are removed, so that the incremental tables equal a rebuild.
const DROP_ZERO = (into: 'hours' | 'days') => `
DELETE FROM dim_activity_${into} t
USING unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::${into === 'hours' ? 'timestamptz' : 'date'}[]) AS z(kind, key, market, unit, at)
WHERE (t.kind, t.key, t.market, t.unit, t.${into === 'hours' ? 'hour' : 'day'}) = (z.kind, z.key, z.market, z.unit, z.at) AND t.starts = 0 AND t.ends = 0`;

export interface ActivityChanges {
  /** URLs whose spans only gained hours (spans_added holds the hours). */
  grown?: string[];
  /** URLs that joined a dimension (all their spans are merged into the new groups). */
  joined?: string[];
  /** Memberships that were just deleted (their groups no longer show in url_dimensions). */
  removed?: RemovedMembership[];
  /** URLs whose spans lost hours (spans_lost holds the hours; those they gained are in spans_added too). */
  lost?: string[];
}

/**
 * Brings the hulls of every group the URLs touch up to date. Call inside a transaction, after their
 * spans and memberships changed. A URL may be in several lists: removed wins (its groups are
 * recomputed whole), then joined.
 */
export async function refreshActivity(db: Queryable, changes: ActivityChanges): Promise<void> {
  const { removed = [] } = changes;
  const whole = [...new Set(removed.map((r) => r.url_id))];
  const lost = [...new Set(changes.lost ?? [])];
  const joinedSet = new Set(changes.joined ?? []);
  const joined = [...joinedSet];
  const grown = [...new Set([...(changes.grown ?? []), ...lost])].filter((u) => !joinedSet.has(u));
  if (whole.length === 0 && joined.length === 0 && grown.length === 0) return;
  // The temp tables have no index: the batch's `enable_seqscan = off` (shared/ingest/write/batch.ts) would push every join
  // with them into nested loops over seq scans. Their sizes are real, so the planner may choose here.
  const {
    rows: [setting],
  } = await db.query<{ prev: string }>(`SELECT current_setting('enable_seqscan') AS prev, set_config('enable_seqscan', 'on', true)`);
  await db.query(ADDED_TABLE);
  await db.query(LOST_TABLE);
  // The frontier, locked until commit (a mention scan refreshes without the ingest's lock), and where this
  // transaction's gained hours move it.
  const {
    rows: [{ before, after }],
  } = await db.query<{ before: string | null; after: string | null }>(
    `SELECT f.hour::text AS before, greatest(f.hour, (SELECT max(end_hour) - interval '1 hour' FROM spans_added))::text AS after
     FROM (SELECT (SELECT hour FROM activity_frontier FOR UPDATE) AS hour) f`,
  );
  await db.query(FULL_GROUPS, [whole, removed.map((r) => r.kind), removed.map((r) => r.key), removed.map((r) => r.url_id)]);
  await db.query(CONTRIBUTIONS, [[...grown, ...joined], grown, joined]);
  await db.query(LOST_HOURS, [lost]);
  if (whole.length) for (const sql of DROP_WHOLE) await db.query(sql);
  const holes = (await db.query(HOLES)).rowCount ?? 1;
  await db.query(MERGED_GROUPS);
  // The share of whole groups decides how their members are read (index probes, not a scan of
  // url_dimensions); the other temp tables meet a stored table by primary key or a single hash join
  // whose inputs are sized from their pages, so statistics would only cost time (docs/BENCHMARKS.md "Ingest").
  await db.query('ANALYZE act_groups');
  const moved = before !== null && after !== before;
  if (moved) await db.query(STATE);
  for (const [i, sql] of OLD(moved).entries()) await db.query(sql, i === 0 ? [before] : undefined);
  await db.query(NEW_RUNS(holes > 0));
  for (const [i, sql] of STEPS.entries()) await db.query(sql, i === 0 ? [after] : undefined);
  if (moved) for (const [i, sql] of CLOSE.entries()) await db.query(sql, i === 0 ? [before] : undefined);
  const { rows } = await db.query<{ tbl: string; kind: string; key: string; market: string; unit: string; at: string }>(MARKS);
  for (const sql of WRITES) await db.query(sql);
  for (const into of ['hours', 'days'] as const) {
    const zero = rows.filter((r) => r.tbl === into);
    if (zero.length)
      await db.query(
        DROP_ZERO(into),
        (['kind', 'key', 'market', 'unit', 'at'] as const).map((column) => zero.map((z) => z[column])),
      );
  }
  if (after !== before)
    await db.query('INSERT INTO activity_frontier (id, hour) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET hour = excluded.hour', [after]);
  await db.query(`SELECT set_config('enable_seqscan', $1, true)`, [setting?.prev ?? 'on']);
}
