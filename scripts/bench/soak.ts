// `npm run bench -- soak [--minutes 120] [--rate 6] [--port P] [--seed 1]`: `npm start` on embedded
// defaults (PGlite, in-process Redis) in a temp DATA_DIR for a long run of what a developer does to it:
// keyed, public, MCP and malformed reads from a few bounded loops (plus a herd now and then), CLI ingests
// through its gateway killed at random points (SIGKILL or Ctrl-C) or left to finish, admin changes
// (rate limits, limit modes, keys made and revoked), and the gateway process paused for seconds (every
// Redis and SQL call of the Workers times out meanwhile). Probes POST /sql `select 1` on the gateway and
// a keyed read every 15 s; a probe unanswered within 120 s is a hang. Loopback only; everything stops at
// the deadline. Report: requests, answers by status, errors, the longest wait, memory at start and end.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort } from '../lib/bench-harness';
import { startSoakStack, type SoakStack } from './soak-stack';
import { fmt, log, median, quantile, table } from './stats';
import { prng } from '../fuzz/random';

const run$ = promisify(execFile);
const option = (argv: string[], name: string, fallback: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};

/** Seeded (the fuzz suite's PRNG), so a run's schedule of kills, pauses and changes can be repeated. */
function rng(seed: number) {
  const random = prng(seed);
  return { ...random, between: (lo: number, hi: number) => lo + random.next() * (hi - lo) };
}

interface Sample {
  kind: 'read' | 'probe';
  what: string;
  ms: number;
  status: number;
  retryAfter: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function timedFetch(url: string, init: RequestInit, kind: Sample['kind'], what: string, timeoutMs: number): Promise<Sample> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return { kind, what, ms: performance.now() - t0, status: res.status, retryAfter: res.headers.has('retry-after') };
  } catch {
    return { kind, what, ms: performance.now() - t0, status: 0, retryAfter: false };
  }
}

function readMix(stack: SoakStack): { path: string; init: RequestInit; key?: string }[] {
  const keyed = (path: string, key = 'full') => ({ path, init: { headers: { 'X-API-Key': stack.key(key) } } });
  const mcp = {
    path: '/mcp',
    init: {
      method: 'POST',
      headers: { 'X-API-Key': stack.key('full'), Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_regions', arguments: {} } }),
    },
  };
  return [
    keyed('/v1/geo/regions'),
    keyed('/v1/geo/regions/US?with_stats=true'),
    keyed('/v2/geo/languages?with_article_counts=true'),
    keyed('/v1/articles?category=/Sports&limit=5'),
    keyed('/v1/analytics/categories?period=7d&top_level=false'),
    keyed('/v1/trends?state=hot&sort_by=article_count&limit=5'),
    keyed('/v1/themes'),
    keyed('/v1/entities/trending?region=US&period=7d&limit=5'),
    keyed('/v2/feed?period=24h&limit=5'),
    keyed('/v2/live?since_minutes=120&limit=5'),
    keyed('/v1/tracking/lists'),
    keyed('/v1/usage'),
    keyed('/v1/geo/regions', 'restricted'),
    keyed('/v1/articles?limit=5', 'other-project'),
    keyed('/v1/articles?limit=abc'),
    keyed('/v1/trends?state=lukewarm'),
    { path: '/v1/geo/regions', init: {} },
    { path: '/public/platform-profile?domain=example.com', init: {} },
    { path: '/openapi.json', init: {} },
    mcp,
  ];
}

export async function run(argv: string[]): Promise<void> {
  const minutes = option(argv, 'minutes', 120);
  const rate = option(argv, 'rate', 6);
  const random = rng(option(argv, 'seed', 1));
  const port = option(argv, 'port', Number(process.env.PORT) || (await freePort()));
  const dataDir = await mkdtemp(join(tmpdir(), 'discovery-soak-'));
  log(`soak: npm start on embedded defaults (port ${port}, DATA_DIR ${dataDir}), ${minutes} min at ${rate} reads/s`);
  const stack = await startSoakStack(dataDir, port);
  const samples: Sample[] = [];
  const counts = { ingests: 0, killed: 0, finished: 0, failed: 0, admin: 0, adminFailed: 0, pauses: 0, herds: 0 };
  try {
    const file = join(dataDir, 'ingest.ndjson');
    await run$('npx', ['tsx', 'scripts/generate/index.ts', '--scale', 'demo', '--seed', '2', '--out', file]);
    const usage = (await (await fetch(`${stack.base}/v1/usage`, { headers: { 'X-API-Key': stack.key('full') } })).json()) as {
      project_id: string;
    };
    const admin = async (...args: string[]) => {
      counts.admin++;
      const child = stack.cli('admin', args);
      const code = await new Promise<number | null>((r) => child.once('exit', r));
      if (code !== 0) counts.adminFailed++;
    };
    await admin('project:set', usage.project_id, '--rate-limit', String(rate * 60 * 4));
    const memStart = await stack.memory();
    const t0 = Date.now();
    const end = t0 + minutes * 60_000;
    const mix = readMix(stack);
    /** Sleeps `ms`, or until the deadline if that comes first: every loop stops by itself. */
    const wait = (ms: number) => sleep(Math.max(0, Math.min(ms, end - Date.now())));

    const loops = 4;
    const reader = async (n: number) => {
      for (let i = n; Date.now() < end; i += loops) {
        const { path, init } = mix[i % mix.length];
        const s = await timedFetch(`${stack.base}${path}`, init, 'read', path, 60_000);
        samples.push(s);
        await wait((loops * 1000) / rate - s.ms);
      }
    };
    const herd = async () => {
      while (Date.now() < end) {
        await wait(random.between(5, 12) * 60_000);
        if (Date.now() >= end) break;
        counts.herds++;
        const { path, init } = mix[Math.floor(random.next() * 10)];
        const all = Array.from({ length: 25 }, () => timedFetch(`${stack.base}${path}`, init, 'read', `herd ${path}`, 60_000));
        samples.push(...(await Promise.all(all)));
      }
    };
    const probe = async () => {
      while (Date.now() < end) {
        const [sql, api] = await Promise.all([
          timedFetch(stack.sqlUrl, { method: 'POST', body: JSON.stringify({ query: 'select 1' }) }, 'probe', 'POST /sql select 1', 120_000),
          timedFetch(`${stack.base}/v1/geo/regions`, { headers: { 'X-API-Key': stack.key('full') } }, 'probe', 'keyed read', 120_000),
        ]);
        samples.push(sql, api);
        for (const p of [sql, api]) if (p.status === 0) log(`soak: HANG? ${p.what} unanswered after ${fmt(p.ms / 1000, 1)} s`);
        await wait(15_000);
      }
    };
    const ingests = async () => {
      while (Date.now() < end) {
        await wait(random.between(1, 5) * 60_000);
        if (Date.now() >= end) break;
        counts.ingests++;
        const child = stack.cli('ingest', [file]);
        let stderr = '';
        child.stderr!.on('data', (b) => (stderr = (stderr + b).slice(-2_000)));
        const exited = new Promise<number | null>((r) => child.once('exit', r));
        // A quarter run to the end (at most 15 minutes), the rest are killed after 2-90 s.
        const finish = random.next() < 0.25;
        const killAfter = finish ? 15 * 60_000 : random.between(2, 90) * 1000;
        const signal = random.next() < 0.5 ? 'SIGKILL' : 'SIGINT';
        let sent = false;
        const timer = setTimeout(
          () => {
            sent = child.exitCode === null;
            if (sent) process.kill(-child.pid!, signal);
          },
          Math.min(killAfter, Math.max(0, end - Date.now())),
        );
        const code = await exited;
        clearTimeout(timer);
        if (sent) counts.killed++;
        else if (code === 0 || code === 1) counts.finished++;
        else {
          counts.failed++;
          log(`soak: ingest exited ${code}: ${stderr.trim().split('\n').at(-1)}`);
        }
      }
    };
    const changes = async () => {
      let k = 0;
      while (Date.now() < end) {
        await wait(random.between(45, 150) * 1000);
        if (Date.now() >= end) break;
        const step = k++ % 4;
        if (step === 0)
          await admin('project:set', usage.project_id, '--rate-limit', String(random.pick([rate * 60 * 2, rate * 60 * 4, rate * 60 * 8])));
        else if (step === 1) await admin('project:set', usage.project_id, '--limits', random.pick(['strict', 'edge']));
        else if (step === 2) await admin('key:create', '--project', usage.project_id, '--name', `soak-${k}`);
        else await admin('usage', usage.project_id);
      }
    };
    const pauses = async () => {
      while (Date.now() < end) {
        await wait(random.between(2, 5) * 60_000);
        if (Date.now() >= end) break;
        counts.pauses++;
        await stack.pauseGateway(random.between(1, 5) * 1000);
      }
    };
    const progress = setInterval(() => {
      const reads = samples.filter((s) => s.kind === 'read');
      log(
        `soak: ${fmt((Date.now() - t0) / 60_000, 1)} min: ${fmt(reads.length)} reads, ${fmt(reads.filter((s) => s.status === 0).length)} unanswered, longest ${fmt(Math.max(0, ...samples.map((s) => s.ms)) / 1000, 1)} s; ingests ${counts.ingests} (killed ${counts.killed}), watchdog lines ${stack.count(/pglite watchdog/)}`,
      );
    }, 5 * 60_000);
    await Promise.all([...Array.from({ length: loops }, (_, n) => reader(n)), herd(), probe(), ingests(), changes(), pauses()]);
    clearInterval(progress);
    const memEnd = await stack.memory();
    report(samples, counts, { minutes: (Date.now() - t0) / 60_000, memStart, memEnd, stack });
  } finally {
    await stack.stop();
    if (!argv.includes('--keep')) await rm(dataDir, { recursive: true, force: true });
    else log(`soak: kept ${dataDir} (npm-start.log has everything npm start printed)`);
  }
}

type Counts = Record<'ingests' | 'killed' | 'finished' | 'failed' | 'admin' | 'adminFailed' | 'pauses' | 'herds', number>;

function report(
  samples: Sample[],
  c: Counts,
  r: { minutes: number; memStart: { gateway: number; workerd: number }; memEnd: { gateway: number; workerd: number }; stack: SoakStack },
): void {
  const expected = (s: Sample) => [200, 304, 400, 401, 403, 404, 422, 429].includes(s.status) || (s.status === 503 && s.retryAfter);
  const rows = (['read', 'probe'] as const).map((kind) => {
    const of = samples.filter((s) => s.kind === kind);
    const ms = of.map((s) => s.ms);
    return [
      kind === 'read' ? 'reads' : 'probes',
      of.length,
      of.filter((s) => s.status >= 200 && s.status < 300).length,
      of.filter((s) => s.status === 503 && s.retryAfter).length,
      of.filter((s) => s.status === 0).length,
      of.filter((s) => s.status !== 0 && !expected(s)).length,
      fmt(median(ms), 0),
      fmt(quantile(ms, 0.99), 0),
      fmt(Math.max(0, ...ms) / 1000, 1),
    ];
  });
  console.log(`\nsoak: ${fmt(r.minutes, 1)} min\n`);
  console.log(table(['', 'requests', '2xx', '503 + Retry-After', 'unanswered', 'other errors', 'median ms', 'p99 ms', 'longest s'], rows));
  const statuses = new Map<number, number>();
  for (const s of samples) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
  console.log(
    `\nstatuses: ${[...statuses]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s}: ${fmt(n)}`)
      .join(', ')}`,
  );
  const odd = samples.filter((s) => s.status !== 0 && !expected(s));
  if (odd.length) console.log(`other errors: ${[...new Set(odd.map((s) => `${s.status} ${s.what}`))].slice(0, 8).join('; ')}`);
  console.log(
    `ingests: ${c.ingests} started, ${c.killed} killed, ${c.finished} finished, ${c.failed} failed; admin commands: ${c.admin} (${c.adminFailed} failed); gateway pauses: ${c.pauses}; herds of 25: ${c.herds}`,
  );
  console.log(
    `memory (RSS): gateway ${fmt(r.memStart.gateway, 0)} -> ${fmt(r.memEnd.gateway, 0)} MB, workerd ${fmt(r.memStart.workerd, 0)} -> ${fmt(r.memEnd.workerd, 0)} MB`,
  );
  console.log(
    `npm start log: ${r.stack.count(/pglite watchdog/)} watchdog lines, ${r.stack.count(/aborted due to timeout/)} "aborted due to timeout"`,
  );
  for (const line of r.stack.matching(/pglite watchdog/)) console.log(`  ${line}`);
  const hung = samples.filter((s) => s.kind === 'probe' && s.status === 0).length;
  console.log(
    `hang: ${hung ? `${hung} probes unanswered within 120 s` : 'none (every probe answered)'}; npm start still up: ${r.stack.running() ? 'yes' : 'NO'}`,
  );
}
