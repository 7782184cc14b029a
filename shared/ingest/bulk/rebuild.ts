// Rebuilds every roll-up from the source tables in set-based SQL: after a bulk load that bypassed
// ingest, or to prove the incremental path (the result must be identical).
import type { Queryable } from '../../db/queryable';
import { slideWindowsWith, windowEnd } from '../../feed/windows';
import { ALL_MARKETS } from '../../rollups/activity-counts';
import { REBUILD_ACTIVITY } from './rebuild-activity';
import { restoreDeferredIndexes } from './deferred-indexes';
import { FILL_THEN_KEY, inTransaction, RAISE_MEMORY } from '../write/sql';
import { REBUILD_ENTITIES, REBUILD_ENTITY_MODELS } from '../../entities/write';
import { REBUILD_PLAN_READS } from '../../db/write-plan-reads';
import { REBUILD_TOPS } from '../../entities/write-tops';
import { REBUILD_HIERARCHY } from '../../trends/write-hierarchy';
import { REBUILD_PROFILES } from '../write/observations';
import { OBSERVATION_DAYS } from '../../rollups/write';

/**
 * url_dimensions and url_spans: the facts every other roll-up of the rebuild is read from.
 * url_dimensions' key and index are built after its rows (docs/INGEST.md "Bulk loads"): inserted one
 * by one, its memberships' keys compared `kind` and `key` through strcoll().
 */
const BASE = [
  RAISE_MEMORY('work_mem', '256MB'),
  `TRUNCATE url_dimensions, url_spans`,
  ...FILL_THEN_KEY(
    {
      table: 'url_dimensions',
      name: 'url_dimensions_kind_key_url_id_pk',
      definition: 'PRIMARY KEY (kind, key, url_id)',
      indexes: [{ name: 'url_dimensions_url_idx', columns: 'url_id' }],
    },
    `INSERT INTO url_dimensions (kind, key, url_id)
     SELECT 'entity', entity_id::text, url_id FROM article_entities
     UNION SELECT 'category', unnest(category_prefixes(name)), url_id FROM article_categories
     UNION SELECT 'publisher', domain, id FROM articles
     UNION SELECT 'trend', trend_id::text, url_id FROM trend_articles
     UNION SELECT 'term', term_id::text, url_id FROM mention_matches`,
  ),
  `ANALYZE url_dimensions`,
  `INSERT INTO url_spans (url_id, country, language, start_hour, end_hour)
   SELECT url_id, country, language, min(hour), max(hour) + interval '1 hour' FROM (
     SELECT url_id, country, language, hour,
            hour - row_number() OVER (PARTITION BY url_id, country, language ORDER BY hour) * interval '1 hour' AS grp
     FROM observations WHERE impressions > 0) runs
   GROUP BY url_id, country, language, grp`,
];

// dim_hours and dim_days in one statement. The per-market hours are aggregated once per key number
// (dim_keys; hashed, 512 MB keeps the ~3M groups of the first million bench lines in memory) and
// written as they are; the hours per key ('*') and the days per market are summed from that
// aggregate, not read back from dim_hours, and the days per key ('*') from the days per market (236k
// rows there instead of the 3.1M hours again). It replaced three statements, and is faster than they
// were on the first million bench lines and on the whole bench set, the more so since the rows keep
// the keys' numbers (drizzle/0020; docs/INGEST.md "Bulk loads", docs/BENCHMARKS.md "Ingest"). Tried
// and dropped: grouping the joined rows by sorting them; both hour sets in one GROUPING SETS pass
// (faster on the first million lines, but on the whole set the planner sorted its 141M joined rows on
// disk); a temp table in between (a second write and read of every row). The rows go straight into
// the heaps, their keys built after them (FILL_THEN_KEY).
const SERIES_ROWS = `-- dim_hours and dim_days from the per-market hours
WITH
hours AS MATERIALIZED (
  SELECT k.id, o.country, o.language, o.hour, sum(o.impressions)::int8 AS impressions, sum(o.impressions::float8 * o.position) AS position_sum
  FROM url_dimensions d JOIN dim_keys k USING (kind, key) JOIN observations o ON o.url_id = d.url_id
  GROUP BY k.id, o.country, o.language, o.hour),
hours_per_market AS (
  INSERT INTO dim_hours (key_id, country, language, hour, impressions, position_sum) SELECT * FROM hours),
hours_all AS (
  INSERT INTO dim_hours (key_id, country, language, hour, impressions, position_sum)
  SELECT id, '${ALL_MARKETS}', '${ALL_MARKETS}', hour, sum(impressions), sum(position_sum) FROM hours GROUP BY id, hour),
days AS MATERIALIZED (
  SELECT id, country, language, (hour AT TIME ZONE 'UTC')::date AS day, sum(impressions) AS impressions, sum(position_sum) AS position_sum
  FROM hours GROUP BY 1, 2, 3, 4),
days_per_market AS (
  INSERT INTO dim_days (key_id, country, language, day, impressions, position_sum) SELECT * FROM days)
INSERT INTO dim_days (key_id, country, language, day, impressions, position_sum)
SELECT id, '${ALL_MARKETS}', '${ALL_MARKETS}', day, sum(impressions), sum(position_sum) FROM days GROUP BY id, day`;

const SERIES_KEYS = [
  { table: 'dim_hours', name: 'dim_hours_pk', definition: 'PRIMARY KEY (key_id, country, language, hour)' },
  { table: 'dim_days', name: 'dim_days_pk', definition: 'PRIMARY KEY (key_id, country, language, day)' },
];

const SERIES = [
  RAISE_MEMORY('work_mem', '512MB'),
  // The keys numbered afresh with the rows that name them.
  `TRUNCATE dim_hours, dim_days, dim_keys RESTART IDENTITY`,
  OBSERVATION_DAYS,
  `INSERT INTO dim_keys (kind, key) SELECT DISTINCT kind, key FROM url_dimensions`,
  // Statistics for the aggregate's join: without them the planner guessed its size (32k per-market
  // hours for 27M on the whole bench set) and sorted all the joined rows on disk.
  `ANALYZE dim_keys`,
  ...FILL_THEN_KEY(SERIES_KEYS, SERIES_ROWS),
  `ANALYZE dim_hours, dim_days`,
];

/** trend_days, trends.peak_date and first_48h_articles from the assignments (docs/TRENDS.md), as ingest keeps them. */
const TREND_DAYS = [
  `TRUNCATE trend_days`,
  `INSERT INTO trend_days (trend_id, day, articles)
   SELECT ta.trend_id, (a.first_seen_at AT TIME ZONE 'UTC')::date, count(*)::int FROM trend_articles ta JOIN articles a ON a.id = ta.url_id GROUP BY 1, 2`,
  `UPDATE trends t SET peak_date = p.day
   FROM (SELECT t2.id, (SELECT d.day FROM trend_days d WHERE d.trend_id = t2.id ORDER BY d.articles DESC, d.day DESC LIMIT 1) AS day FROM trends t2) p
   WHERE t.id = p.id AND t.peak_date IS DISTINCT FROM p.day`,
  `UPDATE trends t SET first_48h_articles = (SELECT count(*)::int FROM trend_articles ta JOIN articles a ON a.id = ta.url_id
     WHERE ta.trend_id = t.id AND a.first_seen_at < t.first_seen_at + interval '48 hours')`,
];

// Each part analyzes the tables it rebuilt at its end, on its own connection (url_dimensions in BASE,
// before the statements that read it are planned; url_spans after the activity hulls, which read it).
const ANALYZE_ACTIVITY = `ANALYZE dim_activity, dim_activity_gaps, dim_activity_hours, dim_activity_days`;
const ANALYZE_OTHERS = `ANALYZE market_days, url_spans, trend_days, hierarchy_sets, hierarchy_articles, hierarchy_signatures, hierarchy_counts`;

function run(db: Queryable, statements: string[], log: (line: string) => void): Promise<void> {
  return inTransaction(db, 'BEGIN', async () => {
    for (const statement of statements) {
      const started = Date.now();
      await db.query(statement);
      log(`${statement.trim().split('\n')[0].slice(0, 60)}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  });
}

export interface RebuildOptions {
  /** Only the activity hulls (dim_activity*), from the current url_dimensions and url_spans. */
  activityOnly?: boolean;
  /** Only the entity read models (entity_best, entity_category_best, entity_hours), from article_entities, article_tops and url_profiles. */
  entitiesOnly?: boolean;
  /** Only dim_hours and dim_days, from the current url_dimensions and observations. */
  seriesOnly?: boolean;
  /** Only the trending tops (entity_hour_tops, entity_day_tops): the backfill of 0010_trending_tops. */
  entityTopsOnly?: boolean;
  /**
   * A second connection to the same database: the rebuild then runs as several transactions instead
   * of one, on both connections at once (one core each): the base facts on `db` beside the profiles,
   * then the dimension series on `db` beside the other parts, the first connection free taking the
   * next. Only where nothing reads meanwhile: a bulk load's end.
   */
  lane?: Queryable;
  /**
   * Also recreates what a bulk load deferred (deferred-indexes.ts): on the lane while the base facts
   * are built on `db` (the lane is idle then, and the base facts only read the tables concerned), or
   * first without a lane.
   */
  restoreIndexes?: boolean;
  /**
   * Receives the tables the rebuild analyzed after the load (observations, the restore's): the
   * caller's own ANALYZE after the run skips them, and so does the restore.
   */
  analyzed?: Set<string>;
  /**
   * Also builds the feed windows to end at this hour's window (a bulk load's end: buildFeedWindows),
   * right after the profiles they are computed from, before the restore recreates the windows' sort
   * indexes over the built rows.
   */
  feedWindowsAt?: Date;
}

async function restoreIndexes(db: Queryable, log: (line: string) => void, analyzed?: Set<string>): Promise<void> {
  const started = Date.now();
  const created = await restoreDeferredIndexes(db, analyzed);
  log(`deferred indexes and foreign keys recreated (${created}): ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Waits for every part before failing, so that no statement is still running when the caller closes a connection. */
async function allOf(parts: Promise<void>[]): Promise<void> {
  for (const part of await Promise.allSettled(parts)) if (part.status === 'rejected') throw part.reason;
}

export async function rebuildRollups(db: Queryable, log: (line: string) => void = () => {}, opts: RebuildOptions = {}): Promise<void> {
  if (opts.entityTopsOnly) return run(db, REBUILD_TOPS, log);
  if (opts.entitiesOnly) return run(db, REBUILD_ENTITIES, log);
  if (opts.activityOnly) return run(db, [...REBUILD_ACTIVITY, ANALYZE_ACTIVITY], log);
  if (opts.seriesOnly) return run(db, SERIES, log);
  const others = [...TREND_DAYS, ...REBUILD_HIERARCHY, ...REBUILD_ACTIVITY, ANALYZE_ACTIVITY, ANALYZE_OTHERS];
  // The plan reads (article_tops) come before the entity models: entity_category_best reads them.
  const entities = [...REBUILD_PLAN_READS, ...REBUILD_ENTITY_MODELS];
  // The profiles first: the hierarchy, plan reads, entity models and feed windows read them, and the
  // deferred indexes of url_profiles and profile_windows are then built over their rows.
  const profiles = async (on: Queryable) => {
    await run(on, REBUILD_PROFILES, log);
    if (opts.feedWindowsAt) await buildFeedWindows(on, opts.feedWindowsAt, log, opts.analyzed);
    if (opts.restoreIndexes) await restoreIndexes(on, log, opts.analyzed);
  };
  if (!opts.lane) {
    await profiles(db);
    return run(db, [...BASE, ...SERIES, ...others, ...entities, ...REBUILD_TOPS], log);
  }
  const lane = opts.lane;
  // Statistics of the loaded facts before either connection plans over them: the restore's own
  // ANALYZE of observations commits only at its end, and the dimension series do not wait for it.
  await db.query('ANALYZE observations');
  opts.analyzed?.add('observations');
  const base = run(db, BASE, log);
  const profiled = profiles(lane);
  // The rest reads the base facts, the profiles and the restored indexes, nothing of the dimension
  // series (whose locks an ANALYZE would wait for) nor of each other (the trending tops read no other
  // entity model): the first free connection takes the next part, longest first as measured on the
  // whole bench set (trend days, hierarchy and activity; entity models; trending tops: docs/BENCHMARKS.md
  // "Ingest", the whole bench set of 2026-11-29).
  const part = (statements: string[]) => (on: Queryable) => run(on, [RAISE_MEMORY('work_mem', '256MB'), ...statements], log);
  const rest = [part(others), part(entities), part(REBUILD_TOPS)];
  const takeRest = async (on: Queryable) => {
    await allOf([base, profiled]);
    for (let next = rest.shift(); next; next = rest.shift()) await next(on);
  };
  // The dimension series, the longest part, read the base facts only: db starts them as soon as those are built.
  await allOf([base.then(() => run(db, SERIES, log)).then(() => takeRest(db)), profiled.then(() => takeRest(lane))]);
}

/**
 * The feed windows after a bulk load: its merge of the staged hours set them back (invalidateWindows),
 * and the full build over a large load outlasts both a feed request's statement timeout and the jobs
 * cron's (the whole bench set: docs/DATA.md "Feed windows"), so it runs here, under the ingest's,
 * ending at the run's hour (docs/DATA.md "Feed windows"). Readers whose clock is elsewhere slide from
 * there as usual. A full build analyzes the table itself (SLIDE_STATEMENTS); a shorter slide changes
 * too few rows to need it, so the restore does not analyze it again.
 */
async function buildFeedWindows(db: Queryable, now: Date, log: (line: string) => void, analyzed?: Set<string>): Promise<void> {
  const started = Date.now();
  await slideWindowsWith(db, windowEnd(now));
  analyzed?.add('profile_windows');
  log(`feed windows built to ${windowEnd(now).toISOString()}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
