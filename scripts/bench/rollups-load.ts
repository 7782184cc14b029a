// Loads the whole bench data set into `bench_rollups` once, through the product's ingest with the
// roll-ups rebuilt at the end (IngestOptions.rollups = 'rebuild-at-end'). Later runs find the
// completion marker and skip the load; `--reload` forces it.
import type pg from 'pg';
import { batchLimits, ingestBatches, type IngestProgress } from '../../shared/ingest';
import { rebuildRollups } from '../../shared/ingest/bulk/rebuild';
import { ALL_MARKETS } from '../../shared/rollups/activity-counts';
import { connectTo, databaseExists, freshDatabase } from '../lib/bench-harness';
import { migrate } from '../lib/migrations';
import { BENCH_NOW, BENCH_SEED } from './generate';
import { copyFromClient } from '../lib/copy-from';
import { parseInThread } from '../lib/parse-thread';
import { fmt, log } from './stats';

/**
 * `bench_rollups` for the whole bench scale; `bench_rollups_<scale>[_<lines>]` for a smaller set
 * (another scale, or only the first `lines` lines) to check the benchmark quickly.
 */
export const rollupsDb = (scale: string, lines?: number) =>
  scale === 'bench' && !lines ? 'bench_rollups' : `bench_rollups_${scale}${lines ? `_${lines}` : ''}`;

export interface LoadInfo {
  seconds: number;
  lines: number;
  now: string;
  loadedAt: string;
  /** True when this run loaded the data (false: reused). */
  fresh: boolean;
  scale: string;
}

const META = `CREATE TABLE IF NOT EXISTS bench_meta (name text PRIMARY KEY, value jsonb NOT NULL)`;

async function readMeta(client: pg.Client, scale: string): Promise<LoadInfo | null> {
  await client.query(META);
  const { rows } = await client.query<{ value: LoadInfo }>(`SELECT value FROM bench_meta WHERE name = 'load'`);
  const info = rows[0]?.value;
  // Markers written before `scale` was recorded belong to the bench scale.
  return info && info.now === BENCH_NOW && (info.scale ?? 'bench') === scale ? { ...info, scale, fresh: false } : null;
}

/** A database loaded by an earlier version: newer migrations, and roll-up tables they added filled. */
async function upgrade(client: pg.Client): Promise<void> {
  await migrate(client);
  const {
    rows: [missing],
  } = await client.query<{ hulls: boolean; totals: boolean; entities: boolean }>(
    `SELECT NOT EXISTS (SELECT 1 FROM dim_activity) AND EXISTS (SELECT 1 FROM url_spans) AS hulls,
            NOT EXISTS (SELECT 1 FROM dim_days WHERE country = '${ALL_MARKETS}') AND EXISTS (SELECT 1 FROM dim_days) AS totals,
            NOT EXISTS (SELECT 1 FROM entity_best) AND EXISTS (SELECT 1 FROM article_entities) AS entities`,
  );
  if (missing.entities) {
    log('building the entity read models (entity_best, entity_hours) of the loaded data');
    await client.query(`SET work_mem = '512MB'`);
    await rebuildRollups(client, (line) => log(`  ${line}`), { entitiesOnly: true });
    await client.query('RESET work_mem');
    // Index-only range scans need the visibility map that VACUUM sets (autovacuum does it in service).
    await client.query('VACUUM (ANALYZE) entity_best, entity_hours, entity_days');
  }
  // 0010_trending_tops on a database whose other entity read models are already built.
  const {
    rows: [tops],
  } = await client.query<{ missing: boolean }>(
    `SELECT NOT EXISTS (SELECT 1 FROM entity_hour_tops) AND EXISTS (SELECT 1 FROM entity_hours) AS missing`,
  );
  if (tops.missing) {
    log('building the trending tops (entity_hour_tops, entity_day_tops) of the loaded data');
    await client.query(`SET work_mem = '512MB'`);
    await rebuildRollups(client, (line) => log(`  ${line}`), { entityTopsOnly: true });
    await client.query('RESET work_mem');
    await client.query('VACUUM (ANALYZE) entity_hour_tops, entity_day_tops');
  }
  if (!missing.hulls && !missing.totals) return;
  await client.query(`SET work_mem = '512MB'`);
  if (missing.hulls) {
    log('building the activity hulls (dim_activity*) of the loaded data');
    await rebuildRollups(client, (line) => log(`  ${line}`), { activityOnly: true });
  }
  if (missing.totals) {
    log('rebuilding dim_hours / dim_days with their all-markets rows');
    await rebuildRollups(client, (line) => log(`  ${line}`), { seriesOnly: true });
  }
  await client.query('RESET work_mem');
  await client.query('VACUUM (ANALYZE) dim_hours, dim_days, dim_activity, dim_activity_gaps, dim_activity_hours, dim_activity_days');
}

export interface LoadOptions {
  reload?: boolean;
  scale?: string;
  /** Only the first `lines` lines. */
  lines?: number;
  /** Called after every batch of a load (default: a log line every 30 s). */
  onProgress?: (p: IngestProgress) => void;
}

/** Lines of the whole bench set (seed BENCH_SEED, now BENCH_NOW): the denominator of progress and ETA. */
export const BENCH_SET_LINES = 22_356_191;

/** The whole bench set, loaded (with its completion marker) in `bench_rollups`? */
export async function fullSetLoaded(): Promise<boolean> {
  const name = rollupsDb('bench');
  if (!(await databaseExists(name))) return false;
  const client = await connectTo(name);
  try {
    return (await readMeta(client, 'bench')) !== null;
  } finally {
    await client.end();
  }
}

export async function ensureRollupsData(opts: LoadOptions = {}): Promise<{ client: pg.Client; info: LoadInfo }> {
  const scale = opts.scale ?? 'bench';
  const ROLLUPS_DB = rollupsDb(scale, opts.lines);
  if (!opts.reload && (await databaseExists(ROLLUPS_DB))) {
    const client = await connectTo(ROLLUPS_DB);
    const info = await readMeta(client, scale);
    if (info) {
      log(`${ROLLUPS_DB}: data loaded ${info.loadedAt} in ${fmt(info.seconds)} s, reusing it`);
      await upgrade(client);
      return { client, info };
    }
    // Never drop a database that holds data without being asked to (a load of the whole set is long:
    // docs/BENCHMARKS.md "Roll-up reads").
    const { rows } = await client
      .query<{ n: string }>(`SELECT count(*) AS n FROM (SELECT 1 FROM observations LIMIT 1) o`)
      .catch(() => ({ rows: [{ n: '0' }] }));
    await client.end();
    if (rows[0].n !== '0') {
      throw new Error(
        `${ROLLUPS_DB} holds data without a matching load marker (interrupted load, or another seed/now): ` +
          'rerun with --reload to drop and load it again',
      );
    }
  }
  log(`${ROLLUPS_DB}: loading the ${scale} set (seed ${BENCH_SEED}, now ${BENCH_NOW}); this takes a while`);
  const client = await freshDatabase(ROLLUPS_DB);
  // Session settings for the bulk load only: the final rebuild groups ~100M joined rows.
  await client.query(`SET work_mem = '512MB'`);
  await client.query(`SET maintenance_work_mem = '1GB'`);
  const lane = await connectTo(ROLLUPS_DB);
  await lane.query(`SET work_mem = '512MB'`);
  const started = Date.now();
  let last = 0;
  // Generated and parsed in a worker thread, as `npm run ingest` parses its file.
  const { batches } = parseInThread({ generate: { scale, lines: opts.lines } }, batchLimits({ rollups: 'rebuild-at-end' }));
  const summary = await ingestBatches(client, batches, {
    rollups: 'rebuild-at-end',
    rebuildLane: lane,
    copyFrom: copyFromClient(client),
    // The data's now, to which the benches read (and slide the feed windows), not the wall clock's.
    now: new Date(BENCH_NOW),
    onRebuildStep: (line) => log(`rebuild: ${line}`),
    onProgress:
      opts.onProgress ??
      ((p) => {
        if (p.seconds - last < 30) return;
        last = p.seconds;
        log(`load: ${fmt(p.read)} lines in ${fmt(p.seconds)} s (${fmt(p.read / p.seconds)} lines/s)`);
      }),
  });
  const seconds = (Date.now() - started) / 1000;
  await lane.end();
  if (summary.skipped > 0) throw new Error(`load skipped ${summary.skipped} lines: ${JSON.stringify(summary.errors.slice(0, 3))}`);
  await client.query('RESET work_mem');
  await client.query('RESET maintenance_work_mem');
  await client.query('VACUUM (ANALYZE)');
  const info: LoadInfo = { seconds, lines: summary.read, now: BENCH_NOW, scale, loadedAt: new Date().toISOString(), fresh: true };
  await client.query(META);
  await client.query(`INSERT INTO bench_meta (name, value) VALUES ('load', $1) ON CONFLICT (name) DO UPDATE SET value = excluded.value`, [
    JSON.stringify(info),
  ]);
  log(`${ROLLUPS_DB}: loaded ${fmt(summary.read)} lines in ${fmt(seconds)} s`);
  return { client, info };
}

/**
 * The cached-read benches' default: the first million lines of the bench set (loaded once, then reused;
 * docs/BENCHMARKS.md "Middleware chain").
 */
export const CACHED_READ_LINES = 1_000_000;

/**
 * The database a bench reads: `--db <name>` as given; else the whole bench set when
 * `npm run bench:data` has loaded it; else the bench set loaded once and reused, `--lines N`
 * (default CACHED_READ_LINES) of it, or `--lines all` for the whole set.
 */
export async function benchDataDb(argv: string[]): Promise<string> {
  const at = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const named = at('--db');
  if (named) return named;
  // The whole set goes through ensureRollupsData too: it brings an older load up to the current migrations.
  const given = at('--lines') ?? ((await fullSetLoaded()) ? 'all' : String(CACHED_READ_LINES));
  const lines = given === 'all' ? undefined : Number(given);
  const { client } = await ensureRollupsData({ lines });
  await client.end();
  return rollupsDb('bench', lines);
}
