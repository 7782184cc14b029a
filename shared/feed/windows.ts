// Feed windows (docs/DATA.md "Feed windows"): profile_windows holds, per profile, the impressions of
// the last 1h/24h/7d/30d and of the window of the same length before each, all ending at the hour
// feed_windows_state.as_of (exclusive). Kept exact by two paths, both recomputing whole profiles from
// their observations (never adding deltas, so late, repeated and corrected hours cannot drift):
// - ingest (write.ts): every profile a batch touched, at the current as_of (under a share lock on the
//   state row);
// - the slide: when the hour moves from E0 to E1, only profiles whose windows can change, i.e. with an
//   observation in an hour that crosses a window edge, or whose first hour crosses a previous-window
//   edge (that decides `previous = null`). A jump of 60 days or more recomputes every profile.
// Both write under a new feed version, keeping the replaced sort values in profile_windows_history so
// cursor pages read a consistent snapshot (docs/DATA.md "Feed snapshots").
import type { Db } from '../db/client';
import type { Queryable } from '../db/queryable';
import { HOUR_MS, WINDOW_HOURS, type WindowName as AllWindows } from '../time/windows';

/** The windows the feed keeps per profile (shared/time/windows.ts has their lengths). */
export const WINDOW_NAMES = ['1h', '24h', '7d', '30d'] as const satisfies readonly AllWindows[];
export type WindowName = (typeof WINDOW_NAMES)[number];

/** The end (exclusive) of every window at `now`: the next whole hour, so the current hour counts. */
export function windowEnd(now: Date): Date {
  return new Date(Math.ceil(now.getTime() / HOUR_MS) * HOUR_MS);
}

/**
 * `derived` = 5040 x (imp_1h/1 + imp_24h/24 + imp_7d/168 + imp_30d/720): the sum of the mean hourly
 * impressions over the four windows, scaled to an integer (5040 = lcm(1, 24, 168, 720), so every
 * term is whole and ties compare exactly). Fresh profiles rank high through their short windows, steady ones through the long.
 */
export const DERIVED_SQL = (w: (name: WindowName) => string) =>
  `(5040 * ${w('1h')} + 210 * ${w('24h')} + 30 * ${w('7d')} + 7 * ${w('30d')})`;

const cur = (name: WindowName) =>
  `coalesce(sum(o.impressions) FILTER (WHERE o.hour >= s.as_of - interval '${WINDOW_HOURS[name]} hours'), 0)`;
const prev = (name: WindowName) => {
  const h = WINDOW_HOURS[name];
  return `CASE WHEN s.as_of - interval '${h} hours' <= p.first_seen THEN NULL ELSE
    coalesce(sum(o.impressions) FILTER (WHERE o.hour >= s.as_of - interval '${2 * h} hours' AND o.hour < s.as_of - interval '${h} hours'), 0) END`;
};

// Every sort value of a profile (docs/DATA.md "Feed snapshots"): a change of one of them makes a new
// version of the row (valid_from = the writing transaction's feed version) and moves the replaced
// version to profile_windows_history, so cursor pages can read the values as of their iteration's start.
export const SNAPSHOT_COLUMNS = [...WINDOW_NAMES.map((n) => `imp_${n}`), 'derived', 'first_seen', 'last_seen', 'avg_position'];

/**
 * Recomputes the profiles in the CTE `k(url_id, country, language)` from their observations in the
 * 60 days before as_of. `state` is the CTE holding `as_of` (locked by the caller as needed). The
 * caller has bumped feed_versions in an earlier statement of the same transaction (BUMP_VERSION), so
 * this statement's snapshot sees every earlier writer's rows and `v` is its own version.
 */
export const RECOMPUTE = (keys: string) => `
agg AS (
  SELECT p.url_id, p.country, p.language,
    ${WINDOW_NAMES.map((n) => `${cur(n)} AS imp_${n}`).join(',\n    ')},
    ${WINDOW_NAMES.map((n) => `${prev(n)} AS prev_${n}`).join(',\n    ')},
    p.first_seen, p.last_seen, p.avg_position
  FROM (${keys}) k
  JOIN url_profiles p ON (p.url_id, p.country, p.language) = (k.url_id, k.country, k.language)
  CROSS JOIN s
  LEFT JOIN observations o ON (o.url_id, o.country, o.language) = (p.url_id, p.country, p.language)
    AND o.hour >= s.as_of - interval '1440 hours' AND o.hour < s.as_of
  GROUP BY p.url_id, p.country, p.language, p.first_seen, p.last_seen, p.avg_position, s.as_of),
v AS (SELECT version FROM feed_versions WHERE id = 1),
nw AS (SELECT agg.*, ${DERIVED_SQL((n) => `imp_${n}`)} AS derived FROM agg),
history AS (
  INSERT INTO profile_windows_history (url_id, country, language, ${SNAPSHOT_COLUMNS.join(', ')}, valid_from, valid_to)
  SELECT w.url_id, w.country, w.language, ${SNAPSHOT_COLUMNS.map((c) => `w.${c}`).join(', ')}, w.valid_from, v.version
  FROM nw JOIN profile_windows w ON (w.url_id, w.country, w.language) = (nw.url_id, nw.country, nw.language) CROSS JOIN v
  -- A version written earlier in this same transaction was never visible to a reader: no history.
  WHERE w.valid_from < v.version
    AND (${SNAPSHOT_COLUMNS.map((c) => `w.${c}`).join(', ')}) IS DISTINCT FROM (${SNAPSHOT_COLUMNS.map((c) => `nw.${c}`).join(', ')}))
-- seen_version: the profile's arrival (the version that first wrote its row), never updated (drizzle/0022).
INSERT INTO profile_windows (url_id, country, language, ${WINDOW_NAMES.map((n) => `imp_${n}, prev_${n}`).join(', ')}, derived, first_seen, last_seen, avg_position, valid_from, seen_version)
SELECT url_id, country, language, ${WINDOW_NAMES.map((n) => `imp_${n}, prev_${n}`).join(', ')}, derived, first_seen, last_seen, avg_position, v.version, v.version
FROM nw CROSS JOIN v
ON CONFLICT (url_id, country, language) DO UPDATE SET
  ${WINDOW_NAMES.map((n) => `imp_${n} = excluded.imp_${n}, prev_${n} = excluded.prev_${n}`).join(', ')}, derived = excluded.derived,
  first_seen = excluded.first_seen, last_seen = excluded.last_seen, avg_position = excluded.avg_position,
  -- Only a change of a sort value is a new version (prev_* are not read by cursor pages' ordering).
  valid_from = CASE WHEN (${SNAPSHOT_COLUMNS.map((c) => `profile_windows.${c}`).join(', ')}) IS DISTINCT FROM (${SNAPSHOT_COLUMNS.map((c) => `excluded.${c}`).join(', ')})
    THEN excluded.valid_from ELSE profile_windows.valid_from END
WHERE (${WINDOW_NAMES.map((n) => `profile_windows.imp_${n}, profile_windows.prev_${n}`).join(', ')}, profile_windows.first_seen, profile_windows.last_seen, profile_windows.avg_position)
  IS DISTINCT FROM (${WINDOW_NAMES.map((n) => `excluded.imp_${n}, excluded.prev_${n}`).join(', ')}, excluded.first_seen, excluded.last_seen, excluded.avg_position)`;

/**
 * A new feed version for this transaction. Its row lock is held until commit, so versions are
 * handed out in commit order: a reader that sees version S sees every write of versions <= S and none
 * of the later ones (docs/DATA.md "Feed snapshots"). Taken after the state row (the slide's lock order).
 */
export const BUMP_VERSION = `UPDATE feed_versions SET version = version + 1 WHERE id = 1`;

/** Versions replaced more than the cursor lifetime (24 h) plus an hour ago are read by no cursor. */
export const PRUNE_HISTORY = `DELETE FROM profile_windows_history WHERE replaced_at < now() - interval '25 hours'`;

/** Slide step 1: claims the move to $1 (the row lock is held until the transaction ends). */
const CLAIM_SLIDE = `
UPDATE feed_windows_state SET prev_as_of = as_of, as_of = $1::timestamptz, pending = true
WHERE id = 1 AND as_of IS DISTINCT FROM $1::timestamptz`;

// Every hour offset at which an observation enters or leaves a current or previous window.
const EDGE_OFFSETS = [...new Set([0, ...WINDOW_NAMES.flatMap((n) => [WINDOW_HOURS[n], 2 * WINDOW_HOURS[n]])])];

/**
 * Slide step 2, incremental: the profiles whose windows can differ between prev_as_of and as_of
 * (LATERAL, so each edge range is one index range scan). Correct for any pair of hours (with
 * -infinity the ranges cover everything), only slower than FULL_KEYS for long jumps.
 */
const EDGE_KEYS = `
SELECT o.url_id, o.country, o.language FROM s CROSS JOIN unnest(ARRAY[${EDGE_OFFSETS.join(', ')}]::int[]) AS e(h)
  CROSS JOIN LATERAL (
    SELECT o.url_id, o.country, o.language FROM observations o
    WHERE o.hour >= least(s.as_of, s.prev_as_of) - e.h * interval '1 hour' AND o.hour < greatest(s.as_of, s.prev_as_of) - e.h * interval '1 hour') o
UNION
SELECT p.url_id, p.country, p.language FROM s CROSS JOIN unnest(ARRAY[${WINDOW_NAMES.map((n) => WINDOW_HOURS[n]).join(', ')}]::int[]) AS e(h)
  CROSS JOIN LATERAL (
    SELECT p.url_id, p.country, p.language FROM url_profiles p
    WHERE p.first_seen >= least(s.as_of, s.prev_as_of) - e.h * interval '1 hour' AND p.first_seen < greatest(s.as_of, s.prev_as_of) - e.h * interval '1 hour') p`;

/** Slide step 2, full: every profile (first build, or a jump of 60 days or more). */
const FULL_KEYS = `SELECT p.url_id, p.country, p.language FROM url_profiles p`;

const APPLY_SLIDE = (keys: string) => `
WITH s AS (SELECT as_of, prev_as_of FROM feed_windows_state WHERE id = 1 AND pending),
${RECOMPUTE(keys)}`;

const FINISH_SLIDE = `UPDATE feed_windows_state SET pending = false WHERE id = 1 AND pending`;

/** Whether moving from `from` to `to` recomputes every profile (a first build or a jump of 60 days or more). */
export const isFullSlide = (from: Date, to: Date) =>
  !Number.isFinite(from.getTime()) || from.getTime() <= -8.64e15 || Math.abs(to.getTime() - from.getTime()) >= 1440 * HOUR_MS;

/**
 * The statements of one slide, to run in one transaction. `full` is decided from a read before the
 * transaction; if another slide moved the state in between, the incremental statement still computes
 * the right set from the state it claims (only the choice of the faster statement could be stale).
 */
export const SLIDE_STATEMENTS = (end: Date, full: boolean): [string, unknown[]][] => [
  [CLAIM_SLIDE, [end.toISOString()]],
  [BUMP_VERSION, []],
  [APPLY_SLIDE(full ? FULL_KEYS : EDGE_KEYS), []],
  [FINISH_SLIDE, []],
  // A full build (after a bulk load) rewrites every row: without fresh statistics a page's filters on
  // it are guessed, and a deep page sorted every profile instead of walking its sort index.
  ...(full ? [['ANALYZE profile_windows', []] as [string, unknown[]]] : []),
];

/** Moves the windows to end at `end`, over a node-postgres client (scripts, the jobs cron). */
export async function slideWindowsWith(client: Queryable, end: Date): Promise<void> {
  const { rows } = await client.query<{ as_of: number }>(
    `SELECT extract(epoch FROM as_of)::float8 AS as_of FROM feed_windows_state WHERE id = 1`,
  );
  const from = new Date(Number(rows[0]?.as_of ?? Number.NEGATIVE_INFINITY) * 1000);
  if (from.getTime() === end.getTime()) return;
  await client.query('BEGIN');
  try {
    for (const [text, params] of SLIDE_STATEMENTS(end, isFullSlide(from, end))) await client.query(text, params);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
}

/** Moves the windows to end at `end` in one HTTP transaction (requests, the jobs cron). */
export async function slideWindows(db: Db, end: Date, from?: Date): Promise<void> {
  const sql = db.$client;
  const full = isFullSlide(from ?? (await windowsAsOf(db)), end);
  await sql.transaction(SLIDE_STATEMENTS(end, full).map(([text, params]) => sql.query(text, params)));
}

/**
 * Slides the windows to `end` when they end elsewhere (`asOf`: where they end, when the caller has
 * read it). A request that finds them behind the hour slides them itself, as the cron does.
 */
export async function slideIfBehind(db: Db, end: Date, asOf?: Date): Promise<boolean> {
  const at = asOf ?? (await windowsAsOf(db));
  if (at.getTime() === end.getTime()) return false;
  await slideWindows(db, end, at);
  return true;
}

/** The hour the windows currently end at. */
export async function windowsAsOf(db: Db): Promise<Date> {
  const rows = (await db.$client.query(`SELECT extract(epoch FROM as_of)::float8 AS as_of FROM feed_windows_state WHERE id = 1`)) as {
    as_of: number | string;
  }[];
  return new Date(Number(rows[0]?.as_of ?? Number.NEGATIVE_INFINITY) * 1000);
}

/** Drops history versions no cursor can read any more (the jobs cron). */
export async function pruneWindowHistory(db: Db): Promise<void> {
  await db.$client.query(PRUNE_HISTORY);
}
