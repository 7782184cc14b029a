// `npm run bench -- ingest:profile [--lines 100000 | --from-db bench_rollups] [--mode incremental|rebuild-at-end|hourly] [--active-days N] [--top 25]`
// Where an ingest spends its time: the first `--lines` lines of the bench set into a fresh database
// over one pg.Client whose every statement is timed (and the rebuild's second connection: the
// database time then sums both, more than the wall time), then the statements by total time (the
// first 100 characters of their text, call count, seconds). `hourly`: the slice is loaded with the
// roll-ups rebuilt at the end (not profiled), then one hour of observations for every profile (seen
// in the last --active-days days, when given) is profiled (scripts/bench/hourly.ts). `--from-db` runs
// the hour on a copy of a loaded database instead (the whole bench set of `npm run bench:data`:
// `--from-db bench_rollups`), whose data ends at the same now. Beside the figure: the floor of the same
// run, the slice's raw lines COPYed into a one-column table, and the ingest's rate as a ratio to it.
import type { Queryable } from '../../shared/db/queryable';
import { type CopyFrom, ingest } from '../../shared/ingest';
import { copyFromClient } from '../lib/copy-from';
import { connectTo, copyDatabase, freshDatabase } from '../lib/bench-harness';
import { BENCH_NOW, firstLines } from './generate';
import { activeProfiles, hourLines } from './hourly';
import { fmt, log, median, table } from './stats';
import type pg from 'pg';

/** Clients whose statements (and COPYs) are timed into one table (a rebuild's second connection included). */
function timed(): { wrap(db: Queryable): Queryable; copy(copyFrom: CopyFrom): CopyFrom; report(top: number): string; total(): number } {
  const stats = new Map<string, { calls: number; ms: number }>();
  let total = 0;
  const time = async <T>(text: string, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await run();
    } finally {
      const ms = performance.now() - started;
      total += ms;
      const key = text.replace(/\s+/g, ' ').trim().slice(0, 100);
      const s = stats.get(key) ?? { calls: 0, ms: 0 };
      s.calls++;
      s.ms += ms;
      stats.set(key, s);
    }
  };
  return {
    wrap: (db) => ({ query: (text, values) => time(text, () => db.query(text, values)) }),
    copy: (copyFrom) => (statement, data) => time(statement, () => copyFrom(statement, data)),
    total: () => total,
    report: (top) =>
      table(
        ['statement', 'calls', 's'],
        [...stats]
          .sort((a, b) => b[1].ms - a[1].ms)
          .slice(0, top)
          .map(([k, s]) => [`\`${k.replace(/\|/g, '\\|')}\``, s.calls, fmt(s.ms / 1000, 2)]),
      ),
  };
}

/**
 * The floor of the same run (issue 43's goals are ratios to it): the slice's raw lines as text, COPYed
 * into a one-column table, the cost of merely storing their bytes; the median of three copies, in lines/s.
 */
async function copyFloor(db: pg.Client, lines: readonly string[]): Promise<number> {
  const copy = copyFromClient(db);
  const text = `${lines.map((l) => l.replace(/\\/g, '\\\\')).join('\n')}\n`;
  const rates: number[] = [];
  for (let i = 0; i < 3; i++) {
    await db.query('CREATE TEMP TABLE IF NOT EXISTS copy_floor (line text); TRUNCATE copy_floor');
    const started = performance.now();
    await copy('COPY copy_floor FROM STDIN', text);
    rates.push(lines.length / ((performance.now() - started) / 1000));
  }
  await db.query('DROP TABLE copy_floor');
  return median(rates);
}

export async function run(argv: string[]): Promise<void> {
  const at = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const lines = Number(at('--lines') ?? 100_000);
  const mode = at('--mode') ?? 'incremental';
  const top = Number(at('--top') ?? 25);
  const activeDays = Number(at('--active-days') ?? Number.POSITIVE_INFINITY);
  const from = at('--from-db');
  if (!['incremental', 'rebuild-at-end', 'hourly'].includes(mode)) throw new Error(`--mode incremental|rebuild-at-end|hourly, not ${mode}`);
  if (from && mode !== 'hourly') throw new Error('--from-db runs an hourly batch: --mode hourly');
  const input = from ? [] : await firstLines('bench', lines);
  const db = from ? await copyDatabase(from, 'bench_ingest_profile') : await freshDatabase('bench_ingest_profile');
  const lane = await connectTo('bench_ingest_profile');
  try {
    let batch = input;
    let now = new Date(BENCH_NOW);
    if (mode === 'hourly') {
      if (!from) await ingest(db, input, { rollups: 'rebuild-at-end', now });
      batch = hourLines(await activeProfiles(db, now, activeDays), now);
      now = new Date(now.getTime() + 3_660_000);
    }
    const profiled = timed();
    const started = performance.now();
    const summary = await ingest(profiled.wrap(db), batch, {
      rollups: mode === 'rebuild-at-end' ? 'rebuild-at-end' : 'incremental',
      rebuildLane: profiled.wrap(lane),
      copyFrom: profiled.copy(copyFromClient(db)),
      now,
      batchSize: mode === 'hourly' ? batch.length : undefined,
    });
    const seconds = (performance.now() - started) / 1000;
    const floor = await copyFloor(db, input.length ? input : await firstLines('bench', lines));
    log(
      `${mode}: ${fmt(batch.length)} lines in ${fmt(seconds, 2)} s (${fmt(batch.length / seconds)} lines/s), ` +
        `${fmt(profiled.total() / 1000, 2)} s in the database, ${summary.skipped} skipped; ` +
        `COPY of the slice's ${fmt(lines)} lines into a one-column table: ${fmt(floor)} lines/s (the ingest at ${(batch.length / seconds / floor).toPrecision(2)}x of it)`,
    );
    console.log(profiled.report(top));
  } finally {
    await Promise.all([db.end(), lane.end()]);
  }
}
