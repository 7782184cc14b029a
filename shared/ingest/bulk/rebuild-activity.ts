// The set-based rebuild of the activity hulls (dim_activity, _gaps, _hours, _days) from url_spans and
// url_dimensions: a bulk load's end (rebuild.ts) and the migration that rebuilt them (scripts/lib/migrations.ts).
import { ALL_MARKETS } from '../../rollups/activity-counts';
import { GROUP, gapsOf, hullsOf, keptPerMarket, marksOf, mergeRuns, spanMarkets, storedEnd } from '../../rollups/write-hulls';
import { FILL_THEN_KEY } from '../write/sql';

/**
 * Runs of each group: `members` yields (kind, key, unit, item, url_id), each in every market its
 * spans count in (`spanMarkets`). Spans are merged when they overlap or touch: a new run starts where
 * a span begins after every earlier span has ended.
 */
const runs = (members: string) => `
spans AS (
  SELECT m.kind, m.key, mk.market, m.unit, m.item, s.start_hour, s.end_hour
  FROM (${members}) m JOIN url_spans s ON s.url_id = m.url_id ${spanMarkets('m.kind', 's.country')}
  WHERE mk.market IS NOT NULL),
${mergeRuns('spans')}`;

/**
 * Every URL's runs, in every market (`*`) and in each market it has spans in, as groups of the
 * publication unit with no kind and no key (item = the URL). A publication group's runs are its
 * URL's whichever key it belongs to, so its hull and gaps are merged once per URL here and then
 * copied to each of the URL's keys (`perKey`), instead of merged once per membership.
 */
const URL_RUNS = `CREATE TEMP TABLE activity_url_runs ON COMMIT DROP AS WITH
spans AS (
  SELECT ''::text AS kind, ''::text AS key, mk.market, 'publication'::text AS unit, s.url_id::text AS item, s.start_hour, s.end_hour
  FROM url_spans s CROSS JOIN LATERAL (VALUES ('${ALL_MARKETS}'::text), (s.country)) AS mk(market)),
${mergeRuns('spans')}
SELECT * FROM runs`;

/** Rows of a per-URL relation `perUrl` (kind and key empty, item the URL) for each key of the URL, in the markets kept for its kind. */
const perKey = (perUrl: string, columns: string) => `
  SELECT d.kind, d.key, u.market, u.unit, u.item, ${columns} FROM (${perUrl}) u
  JOIN url_dimensions d ON d.url_id = u.item::uuid AND (u.market = '${ALL_MARKETS}' OR ${keptPerMarket('d.kind')})`;

/**
 * Every group of the publisher and trend units: each publisher / trend of a key's URLs (publication
 * groups come from URL_RUNS). A publisher key has one publisher (a URL has one domain), so that
 * group is not stored; a trend key keeps its trend groups, as its URLs may belong to other trends too.
 */
const LINKED_MEMBERS = `
  SELECT d.kind, d.key, x.kind AS unit, x.key AS item, d.url_id FROM url_dimensions d
  JOIN url_dimensions x ON x.url_id = d.url_id AND x.kind IN ('publisher', 'trend') AND NOT (d.kind = 'publisher' AND x.kind = 'publisher')`;

/**
 * Hull starts and ends per hour, from the stored hulls, and per day, from those hours (their sums
 * per UTC day, over fewer rows than the hulls' two marks each).
 */
const MARKS_FROM_HULLS = (into: 'hours' | 'days') => {
  const column = into === 'hours' ? 'hour' : 'day';
  const [at, marks] =
    into === 'hours' ? ['hour', `(${marksOf('dim_activity', 1)}) m`] : [`(hour AT TIME ZONE 'UTC')::date`, 'dim_activity_hours'];
  return FILL_THEN_KEY(
    {
      table: `dim_activity_${into}`,
      name: `dim_activity_${into}_pk`,
      definition: `PRIMARY KEY (kind, key, market, unit, ${column}) INCLUDE (starts, ends)`,
    },
    `INSERT INTO dim_activity_${into} (kind, key, market, unit, ${column}, starts, ends)
     SELECT kind, key, market, unit, ${at}, sum(starts)::int, sum(ends)::int FROM ${marks}
     GROUP BY kind, key, market, unit, ${at}`,
  );
};

/**
 * The frontier: the last active hour of any span, or the stored frontier when that is later (it never
 * moves back: an hour corrected to zero leaves it where ingest had moved it).
 */
const FRONTIER = `
INSERT INTO activity_frontier (id, hour) SELECT 1, max(end_hour) - interval '1 hour' FROM url_spans HAVING count(*) > 0
ON CONFLICT (id) DO UPDATE SET hour = greatest(activity_frontier.hour, excluded.hour)`;

/** Set-based rebuild of the activity tables (after url_dimensions and url_spans are rebuilt). */
export const REBUILD_ACTIVITY = [
  `TRUNCATE dim_activity, dim_activity_open, dim_activity_gaps, dim_activity_hours, dim_activity_days`,
  FRONTIER,
  URL_RUNS,
  `CREATE TEMP TABLE activity_runs ON COMMIT DROP AS WITH ${runs(LINKED_MEMBERS)} SELECT * FROM runs`,
  ...FILL_THEN_KEY(
    { table: 'dim_activity', name: 'dim_activity_pk', definition: `PRIMARY KEY (${GROUP})` },
    `INSERT INTO dim_activity (${GROUP}, first_hour, end_hour)
     SELECT ${GROUP}, first_hour, ${storedEnd('end_hour', 'f.hour')} FROM (
       ${hullsOf('activity_runs')} UNION ALL ${perKey(hullsOf('activity_url_runs'), 'u.first_hour, u.end_hour')}) h
     CROSS JOIN activity_frontier f`,
  ),
  `INSERT INTO dim_activity_open (${GROUP}, first_hour) SELECT ${GROUP}, first_hour FROM dim_activity WHERE end_hour IS NULL`,
  ...FILL_THEN_KEY(
    {
      table: 'dim_activity_gaps',
      name: 'dim_activity_gaps_pk',
      definition: `PRIMARY KEY (${GROUP}, gap_start)`,
      indexes: [{ name: 'dim_activity_gaps_end_idx', columns: 'kind, key, market, unit, gap_end' }],
    },
    `INSERT INTO dim_activity_gaps (${GROUP}, gap_start, gap_end)
     ${gapsOf('activity_runs')} UNION ALL ${perKey(gapsOf('activity_url_runs'), 'u.gap_start, u.gap_end')}`,
  ),
  ...MARKS_FROM_HULLS('hours'),
  ...MARKS_FROM_HULLS('days'),
  `DROP TABLE activity_runs, activity_url_runs`,
];
