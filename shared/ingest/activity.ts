// Keeps the activity hulls exact (dim_activity, _gaps, _hours, _days; docs/DATA.md "Distinct
// counts"). A group is (dimension kind, key, unit, item): a URL of the key, or a publisher or trend
// of the key's URLs. Its activity is the union of the url_spans of its URLs over all markets and
// languages, merged into runs; the hull is [first run start, last run end), the gaps are the holes
// between runs. Incremental refresh and full rebuild share the SQL below.
import type { Queryable } from '../db/queryable';

/** Each group's hull, from its runs (a relation of kind, key, unit, item, s, e). */
const hullsOf = (runs: string) => `SELECT kind, key, unit, item, min(s) AS first_hour, max(e) AS end_hour FROM ${runs} GROUP BY kind, key, unit, item`;

/** The holes between a group's consecutive runs. */
const gapsOf = (runs: string) => `SELECT kind, key, unit, item, prev AS gap_start, s AS gap_end FROM (
    SELECT *, lag(e) OVER (PARTITION BY kind, key, unit, item ORDER BY s) AS prev FROM ${runs}) r
  WHERE prev IS NOT NULL`;

/**
 * Runs of each group: `members` yields (kind, key, unit, item, url_id). Spans are merged when they
 * overlap or touch: a new run starts where a span begins after every earlier span has ended.
 */
const runs = (members: string) => `
spans AS (
  SELECT m.kind, m.key, m.unit, m.item, s.start_hour, s.end_hour FROM (${members}) m JOIN url_spans s ON s.url_id = m.url_id),
marked AS (
  SELECT *, max(end_hour) OVER (PARTITION BY kind, key, unit, item ORDER BY start_hour, end_hour
                                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
  FROM spans),
numbered AS (
  SELECT *, count(*) FILTER (WHERE prev_end IS NULL OR start_hour > prev_end)
              OVER (PARTITION BY kind, key, unit, item ORDER BY start_hour, end_hour) AS run
  FROM marked),
runs AS (
  SELECT kind, key, unit, item, min(start_hour) AS s, max(end_hour) AS e FROM numbered GROUP BY kind, key, unit, item, run),
hulls AS (${hullsOf('runs')}),
gaps AS (${gapsOf('runs')})`;

/**
 * Every group that exists: each URL of a key, and each publisher / trend of a key's URLs. A
 * publisher key has one publisher (a URL has one domain), so that group is not stored; a trend key
 * keeps its trend groups, as its URLs may belong to other trends too.
 */
const ALL_MEMBERS = `
  SELECT kind, key, 'publication'::text AS unit, url_id::text AS item, url_id FROM url_dimensions
  UNION ALL
  SELECT d.kind, d.key, x.kind, x.key, d.url_id FROM url_dimensions d
  JOIN url_dimensions x ON x.url_id = d.url_id AND x.kind IN ('publisher', 'trend') AND NOT (d.kind = 'publisher' AND x.kind = 'publisher')`;

/** A hull "ends" at its last active hour, so that both marks are counted strictly before a boundary. */
const LAST_HOUR = `(end_hour - interval '1 hour')`;

/** The marks of the hulls in `hulls` (first hour: a start; last active hour: an end), counted `sign` times. */
const marksOf = (hulls: string, sign: 1 | -1) => `
    SELECT kind, key, unit, first_hour AS hour, ${sign} AS starts, 0 AS ends FROM ${hulls}
    UNION ALL SELECT kind, key, unit, ${LAST_HOUR}, 0, ${sign} FROM ${hulls}`;

/** Hull starts and ends per hour and per day, from the stored hulls. */
const MARKS_FROM_HULLS = (into: 'hours' | 'days') => {
  const at = into === 'hours' ? 'hour' : `(hour AT TIME ZONE 'UTC')::date`;
  return `INSERT INTO dim_activity_${into} (kind, key, unit, ${into === 'hours' ? 'hour' : 'day'}, starts, ends)
  SELECT kind, key, unit, ${at}, sum(starts)::int, sum(ends)::int FROM (${marksOf('dim_activity', 1)}) m
  GROUP BY kind, key, unit, ${at}`;
};

/** Set-based rebuild of the activity tables (after url_dimensions and url_spans are rebuilt). */
export const REBUILD_ACTIVITY = [
  `TRUNCATE dim_activity, dim_activity_gaps, dim_activity_hours, dim_activity_days`,
  `CREATE TEMP TABLE activity_runs ON COMMIT DROP AS WITH ${runs(ALL_MEMBERS)} SELECT * FROM runs`,
  `INSERT INTO dim_activity (kind, key, unit, item, first_hour, end_hour) ${hullsOf('activity_runs')}`,
  `INSERT INTO dim_activity_gaps (kind, key, unit, item, gap_start, gap_end) ${gapsOf('activity_runs')}`,
  MARKS_FROM_HULLS('hours'),
  MARKS_FROM_HULLS('days'),
  `DROP TABLE activity_runs`,
];

// Data-modifying CTEs run to completion whether or not the final SELECT reads them.
// The groups a set of touched URLs can change: every (key, unit, item) they belong to before or
// after this batch ($2-$4: memberships that were just removed). Recomputed whole from current data.
const REFRESH = `
WITH mem AS (
  SELECT kind, key, url_id FROM url_dimensions WHERE url_id = ANY($1::uuid[])
  UNION SELECT * FROM unnest($2::text[], $3::text[], $4::uuid[]) AS r(kind, key, url_id)),
own AS (
  SELECT url_id, 'publication'::text AS unit, url_id::text AS item, url_id AS item_url FROM unnest($1::uuid[]) AS t(url_id)
  UNION SELECT url_id, kind, key, NULL::uuid FROM mem WHERE kind IN ('publisher', 'trend')),
groups AS MATERIALIZED (
  SELECT DISTINCT m.kind, m.key, o.unit, o.item, o.item_url FROM mem m JOIN own o USING (url_id) WHERE NOT (m.kind = 'publisher' AND o.unit = 'publisher')),
members AS (
  SELECT g.kind, g.key, g.unit, g.item, d.url_id FROM groups g
  JOIN url_dimensions d ON d.kind = g.kind AND d.key = g.key AND d.url_id = g.item_url
  WHERE g.unit = 'publication'
  UNION ALL
  SELECT g.kind, g.key, g.unit, g.item, d.url_id FROM groups g
  JOIN url_dimensions x ON x.kind = g.unit AND x.key = g.item
  JOIN url_dimensions d ON d.kind = g.kind AND d.key = g.key AND d.url_id = x.url_id
  WHERE g.unit <> 'publication'),
${runs('SELECT * FROM members')},
old AS MATERIALIZED (
  SELECT a.kind, a.key, a.unit, a.item, a.first_hour, a.end_hour FROM dim_activity a
  JOIN groups g ON (a.kind, a.key, a.unit, a.item) = (g.kind, g.key, g.unit, g.item)),
delta AS MATERIALIZED (
  SELECT kind, key, unit, hour, sum(starts)::int AS starts, sum(ends)::int AS ends FROM (${marksOf('hulls', 1)}
    UNION ALL ${marksOf('old', -1)}) m
  GROUP BY kind, key, unit, hour
  HAVING sum(starts) <> 0 OR sum(ends) <> 0),
hours AS (
  INSERT INTO dim_activity_hours (kind, key, unit, hour, starts, ends) SELECT * FROM delta
  ON CONFLICT (kind, key, unit, hour) DO UPDATE
    SET starts = dim_activity_hours.starts + excluded.starts, ends = dim_activity_hours.ends + excluded.ends
  RETURNING kind, key, unit, hour::text AS at, starts, ends),
days AS (
  INSERT INTO dim_activity_days (kind, key, unit, day, starts, ends)
  SELECT kind, key, unit, (hour AT TIME ZONE 'UTC')::date, sum(starts), sum(ends) FROM delta GROUP BY 1, 2, 3, 4
  ON CONFLICT (kind, key, unit, day) DO UPDATE
    SET starts = dim_activity_days.starts + excluded.starts, ends = dim_activity_days.ends + excluded.ends
  RETURNING kind, key, unit, day::text AS at, starts, ends),
put AS (
  INSERT INTO dim_activity (kind, key, unit, item, first_hour, end_hour) SELECT * FROM hulls
  ON CONFLICT (kind, key, unit, item) DO UPDATE SET first_hour = excluded.first_hour, end_hour = excluded.end_hour
  RETURNING 1),
gone AS (
  DELETE FROM dim_activity a USING old o
  WHERE (a.kind, a.key, a.unit, a.item) = (o.kind, o.key, o.unit, o.item)
    AND NOT EXISTS (SELECT 1 FROM hulls h WHERE (h.kind, h.key, h.unit, h.item) = (o.kind, o.key, o.unit, o.item))
  RETURNING 1),
put_gaps AS (
  INSERT INTO dim_activity_gaps (kind, key, unit, item, gap_start, gap_end) SELECT * FROM gaps
  ON CONFLICT (kind, key, unit, item, gap_start) DO UPDATE SET gap_end = excluded.gap_end
  RETURNING 1),
gone_gaps AS (
  DELETE FROM dim_activity_gaps x USING groups g
  WHERE (x.kind, x.key, x.unit, x.item) = (g.kind, g.key, g.unit, g.item)
    AND NOT EXISTS (SELECT 1 FROM gaps n WHERE (n.kind, n.key, n.unit, n.item, n.gap_start) = (x.kind, x.key, x.unit, x.item, x.gap_start))
  RETURNING 1)
SELECT 'hours' AS tbl, kind, key, unit, at FROM hours WHERE starts = 0 AND ends = 0
UNION ALL SELECT 'days', kind, key, unit, at FROM days WHERE starts = 0 AND ends = 0`;

// Marks that fell back to zero are removed, so that the incremental tables equal a rebuild.
const DROP_ZERO = (into: 'hours' | 'days') => `
DELETE FROM dim_activity_${into} t USING unnest($1::text[], $2::text[], $3::text[], $4::${into === 'hours' ? 'timestamptz' : 'date'}[]) AS z(kind, key, unit, at)
WHERE (t.kind, t.key, t.unit, t.${into === 'hours' ? 'hour' : 'day'}) = (z.kind, z.key, z.unit, z.at) AND t.starts = 0 AND t.ends = 0`;

export interface RemovedMembership {
  kind: string;
  key: string;
  url_id: string;
}

/**
 * Recomputes every activity group the URLs touch: call after their spans or memberships changed,
 * with the memberships that were removed (their groups no longer show in url_dimensions).
 */
export async function refreshActivity(db: Queryable, urlIds: string[], removed: RemovedMembership[] = []): Promise<void> {
  if (urlIds.length === 0 && removed.length === 0) return;
  const urls = [...new Set([...urlIds, ...removed.map((r) => r.url_id)])];
  const { rows } = await db.query<{ tbl: string; kind: string; key: string; unit: string; at: string }>(REFRESH, [
    urls, removed.map((r) => r.kind), removed.map((r) => r.key), removed.map((r) => r.url_id),
  ]);
  for (const into of ['hours', 'days'] as const) {
    const zero = rows.filter((r) => r.tbl === into);
    if (zero.length) await db.query(DROP_ZERO(into), [zero.map((z) => z.kind), zero.map((z) => z.key), zero.map((z) => z.unit), zero.map((z) => z.at)]);
  }
}
