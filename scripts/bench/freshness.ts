// `npm run bench -- freshness [--lines 1000000] [--hours 3] [--active-days 2]`: the lag of the drop.
// The first `--lines` bench lines are loaded once by the CLI into a base database, copied twice; then
// each of `--hours` hourly files of the bench shape (scripts/bench/hourly.ts: the live hour of every
// active profile, with late, corrected and repeated lines) is, in the same run, dropped into the
// bucket of an `npm start` running against one copy (drop -> first chunk started -> run finished ->
// the first API answer that includes it: its Data-As-Of and a count that moved), and loaded by the
// CLI (`npm run ingest`, process start to exit) into the other copy. Goals (issue 44): drop -> visible
// at most the CLI's time + 5 s; drop -> first chunk under 2 s.
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectTo, copyDatabase, dbUrl, freshDatabase, startNpmStart } from '../lib/bench-harness';
import { putDrop } from '../lib/local-drop';
import { BENCH_NOW, generatedLines } from './generate';
import { activeProfiles, hourLines } from './hourly';
import { fmt, log, median, table } from './stats';

const HOUR = 3_600_000;
const ROOT = join(import.meta.dirname, '..', '..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const arg = (argv: string[], name: string, fallback: number) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};

/** The CLI on `file` into database `name`: seconds from process start to exit. */
function cli(file: string, name: string, extra: string[] = []): number {
  const started = performance.now();
  const run = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'scripts/ingest.ts'), file, '--json', ...extra], {
    env: { ...process.env, DATABASE_URL: dbUrl(name) },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0 && run.status !== 1) throw new Error(`ingest into ${name} failed (${run.status}): ${run.stderr.slice(-2_000)}`);
  return (performance.now() - started) / 1000;
}

interface Probe {
  asOf: string | null;
  count: number;
}

/** GET /v1/articles, the 20 seen last: Data-As-Of and their impressions (which the live hour moves). */
async function probe(base: string, key: string): Promise<Probe> {
  const res = await fetch(`${base}/v1/articles?sort_by=last_seen&limit=20`, { headers: { 'X-API-Key': key } });
  const body = (await res.json()) as { articles?: { impressions: number }[] };
  if (!res.ok || !body.articles) throw new Error(`probe: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  const items = body.articles;
  return { asOf: res.headers.get('Data-As-Of'), count: items.reduce((n, i) => n + i.impressions, 0) };
}

/**
 * Seconds until nothing but `ledger` has run a statement in `database` for 3 s straight (at most 300 s):
 * npm start runs the jobs' cron once it answers (its scans, warmers and day closes), and a file
 * dropped meanwhile shares the machine with that run, which deployed crons do every 10 minutes, not
 * at each drop.
 */
async function quiet(ledger: Awaited<ReturnType<typeof connectTo>>, database: string): Promise<number> {
  const started = Date.now();
  let since = Date.now();
  while (Date.now() - started < 300_000) {
    const { rows } = await ledger.query<{ active: number }>(
      `SELECT count(*)::int AS active FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid()`,
      [database],
    );
    if (rows[0]!.active > 0) since = Date.now();
    else if (Date.now() - since >= 3_000) break;
    await sleep(250);
  }
  return (since - started) / 1000;
}

/** `npm start` against `database`, the live simulation off and the clock at `now`; its internal demo key. */
async function startApi(dir: string, database: string, now: string) {
  const api = await startNpmStart({ dataDir: join(dir, 'data'), env: { DATABASE_URL: dbUrl(database), LIVE: 'off', NOW: now } });
  return { base: api.base, key: api.key('internal'), stop: () => api.stop() };
}

export async function run(argv: string[]): Promise<void> {
  const lines = arg(argv, '--lines', 1_000_000);
  const hours = arg(argv, '--hours', 3);
  const activeDays = arg(argv, '--active-days', 2);
  const dir = await mkdtemp(join(tmpdir(), 'bench-freshness-'));
  const [baseDb, dropDb, cliDb] = ['bench_fresh_base', 'bench_fresh_drop', 'bench_fresh_cli'];
  try {
    const slice = join(dir, 'slice.ndjson');
    const out = createWriteStream(slice);
    for await (const line of generatedLines('bench', lines))
      if (!out.write(`${line}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
    await new Promise<void>((r) => out.end(() => r()));
    await (await freshDatabase(baseDb)).end();
    log(`base: the first ${fmt(lines)} bench lines loaded by the CLI in ${fmt(cli(slice, baseDb), 1)} s`);

    const base = await connectTo(baseDb);
    const profiles = await activeProfiles(base, new Date(BENCH_NOW), activeDays);
    const { rows } = await base.query<{ last: Date }>('SELECT max(hour) AS last FROM observations');
    await base.end();
    const first = rows[0]!.last.getTime() + HOUR;
    const files: string[] = [];
    for (let k = 0; k < hours; k++) {
      const file = join(dir, `hour-${k}.ndjson`);
      await writeFile(file, `${hourLines(profiles, new Date(first + k * HOUR)).join('\n')}\n`);
      files.push(file);
    }
    await (await copyDatabase(baseDb, dropDb)).end();
    await (await copyDatabase(baseDb, cliDb)).end();
    // The clock half an hour past the last file's hour: each hour is complete once it lands.
    const api = await startApi(dir, dropDb, new Date(first + hours * HOUR + HOUR / 2).toISOString());
    const ledger = await connectTo(dropDb);
    log(`npm start's boot cron run: ${fmt(await quiet(ledger, dropDb), 1)} s until its database was quiet`);
    const rowsOut: (string | number)[][] = [];
    const m = { firstChunk: [] as number[], finished: [] as number[], visible: [] as number[], cli: [] as number[] };
    try {
      for (const [k, file] of files.entries()) {
        const hour = new Date(first + k * HOUR).toISOString().replace('.000Z', '+00:00');
        const before = await probe(api.base, api.key);
        const t0 = Date.now();
        const dropped = await putDrop(api.base, `bench/hour-${k}.ndjson`, await readFile(file));
        let started: number | undefined;
        let finished: number | undefined;
        let visible: number | undefined;
        let asOfAt: number | undefined;
        let countAt: number | undefined;
        while (visible === undefined && Date.now() - t0 < 600_000) {
          if (finished === undefined) {
            const { rows: run } = await ledger.query<{
              started: number | null;
              finished: number | null;
              state: string;
              reason: string | null;
            }>(
              `SELECT extract(epoch FROM started_at) * 1000 AS started, extract(epoch FROM finished_at) * 1000 AS finished, state, reason
               FROM ingest_runs WHERE object_key = $1 AND etag = $2`,
              [dropped.object.key, dropped.object.eTag],
            );
            if (run[0]?.state === 'failed') throw new Error(`run failed: ${run[0].reason}`);
            if (run[0]?.started) started = Number(run[0].started) - t0;
            if (run[0]?.finished) finished = Number(run[0].finished) - t0;
          }
          // The API is asked once the run has finished (every 100 ms: the key's per-minute limit), the ledger every 25 ms.
          if (finished === undefined) {
            await sleep(25);
            continue;
          }
          const now = await probe(api.base, api.key);
          if (now.asOf === hour) asOfAt ??= Date.now() - t0;
          if (now.count !== before.count) countAt ??= Date.now() - t0;
          if (asOfAt !== undefined && countAt !== undefined) visible = Math.max(asOfAt, countAt);
          else await sleep(100);
        }
        if (visible === undefined || started === undefined || finished === undefined)
          throw new Error(`hour ${hour} not visible within 600 s`);
        const cliSeconds = cli(file, cliDb);
        m.firstChunk.push(started / 1000);
        m.finished.push(finished / 1000);
        m.visible.push(visible / 1000);
        m.cli.push(cliSeconds);
        const lineCount = (await readFile(file, 'utf8')).trimEnd().split('\n').length;
        rowsOut.push([
          hour,
          fmt(lineCount),
          fmt(started / 1000, 2),
          fmt(finished / 1000, 2),
          fmt(visible / 1000, 2),
          fmt(cliSeconds, 2),
          fmt(visible / 1000 - cliSeconds, 2),
        ]);
        log(
          `hour ${hour}: first chunk ${fmt(started / 1000, 2)} s, finished ${fmt(finished / 1000, 2)} s, visible ${fmt(visible / 1000, 2)} s ` +
            `(Data-As-Of ${fmt(asOfAt! / 1000, 2)} s, count ${fmt(countAt! / 1000, 2)} s); CLI ${fmt(cliSeconds, 2)} s`,
        );
      }
    } finally {
      await ledger.end();
      await api.stop();
      await sleep(1500);
    }
    // The goal compares each file's drop with the CLI loading the same file right after it: the median
    // of those differences, not the difference of two medians taken over different hours.
    const gap = median(m.visible.map((v, i) => v - m.cli[i]!));
    const [mc, mf, mv, ml] = [median(m.firstChunk), median(m.finished), median(m.visible), median(m.cli)];
    rowsOut.push(['median', '', fmt(mc, 2), fmt(mf, 2), fmt(mv, 2), fmt(ml, 2), fmt(gap, 2)]);
    log(`\n${table(['hour', 'lines', 'drop->first chunk s', 'drop->finished s', 'drop->visible s', 'CLI s', 'visible - CLI s'], rowsOut)}`);
    log(
      `drop -> visible minus the CLI's time, median over the files: ${fmt(gap, 2)} s (goal <= 5 s: ${gap <= 5 ? 'met' : 'NOT met'}); ` +
        `drop -> first chunk ${fmt(mc, 2)} s (goal < 2 s: ${mc < 2 ? 'met' : 'NOT met'})`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
