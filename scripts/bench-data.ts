// `npm run bench:data [--reload] [--lines N]`: loads the whole bench set (generator seed 1,
// now 2026-03-01T12:00:00Z) into `bench_rollups` in one command, through the product's ingest with
// the roll-ups rebuilt at the end, and shows progress (bar, lines/s, ETA) while it runs. A database
// that already holds the completed load is reused (nothing is generated or loaded); --reload drops
// and loads it again. The benches that read real data (middleware, tracking) default to this set
// when it is present. --lines N loads only the first N lines (bench_rollups_bench_N), to try it out.
import type { IngestProgress } from '../shared/ingest';
import { BENCH_SET_LINES, ensureRollupsData, rollupsDb } from './bench/rollups-load';
import { fmt, log } from './bench/stats';

const argv = process.argv.slice(2);
const lines = argv.includes('--lines') ? Number(argv[argv.indexOf('--lines') + 1]) : undefined;
if (lines !== undefined && !(Number.isInteger(lines) && lines > 0)) {
  console.error('usage: npm run bench:data [--reload] [--lines N]');
  process.exit(2);
}
const total = lines ?? BENCH_SET_LINES;

const clock = (s: number) => {
  const m = Math.floor(s / 60);
  return m >= 60 ? `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m` : `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
};

/** One status line: redrawn in place on a terminal, else printed every 30 s (logs stay short). */
function progress(): (p: IngestProgress) => void {
  let printed = -Infinity;
  return (p) => {
    const rate = p.seconds > 0 ? p.read / p.seconds : 0;
    const done = Math.min(1, p.read / total);
    const eta = rate > 0 ? Math.max(0, total - p.read) / rate : Number.NaN;
    const bar = `[${'#'.repeat(Math.round(done * 30)).padEnd(30, '.')}] ${(done * 100).toFixed(1).padStart(5)}%`;
    const text =
      `${bar} ${fmt(p.read)} / ${fmt(total)} lines, ${fmt(rate)} lines/s, ` +
      `elapsed ${clock(p.seconds)}, ETA ${Number.isNaN(eta) ? '?' : clock(eta)}` +
      (p.read >= total ? ' (then the roll-ups are rebuilt: one line per step follows)' : '');
    if (process.stderr.isTTY) process.stderr.write(`\r${text}  `);
    // The last batch always prints: the roll-up rebuild that follows is silent for minutes.
    else if (p.seconds - printed >= 30 || p.read >= total) {
      printed = p.seconds;
      log(text);
    }
  };
}

try {
  const { client, info } = await ensureRollupsData({ reload: argv.includes('--reload'), lines, onProgress: progress() });
  if (process.stderr.isTTY && info.fresh) process.stderr.write('\n');
  const {
    rows: [counts],
  } = await client.query(`SELECT (SELECT count(*) FROM observations)::int8 AS observations,
    (SELECT count(*) FROM url_profiles)::int8 AS profiles, (SELECT count(*) FROM articles)::int8 AS articles`);
  await client.end();
  log(
    `${rollupsDb('bench', lines)}: ${fmt(info.lines)} lines ${info.fresh ? 'loaded' : 'already loaded'} ` +
      `(${fmt(info.seconds)} s, ${fmt(info.lines / info.seconds)} lines/s, roll-ups included)`,
  );
  console.log(JSON.stringify({ database: rollupsDb('bench', lines), ...info, ...counts }));
  process.exit(0);
} catch (err) {
  log(`bench:data failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
