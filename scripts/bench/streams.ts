// `npm run bench -- streams [--seconds 45] [--sizes 10,100,500]`: push streams against `npm start`
// while its live simulation runs (a step every 5 s here, LIVE_STEP_MS), for 10, 100 and 500 concurrent
// streams of one scope and of 50 mixed scopes: delivery latency from the commit (the ingest's signal
// bump, seen by polling Redis every 25 ms) to the client (p50/p95), database queries and Redis calls per
// minute at npm start's gateway (a window without streams is the baseline), and workerd's memory per
// open stream. Results: docs/BENCHMARKS.md "Streams".
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKey } from '../../shared/admin/keys';
import { signalKey } from '../../shared/streams/signal';
import { fmt, log, median, p95, table } from './stats';

const ROOT = join(import.meta.dirname, '..', '..');
const PORT = Number(process.env.PORT ?? 8745);
const DATA_DIR = process.env.BENCH_DATA_DIR ?? join(ROOT, '.data', 'bench-streams');
const STEP_MS = 5_000;

const arg = (argv: string[], name: string, fallback: string) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? argv[at + 1] : fallback;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function descendants(pid: number): number[] {
  const out: number[] = [];
  const walk = (p: number) => {
    const children = readFileSyncSafe(`/proc/${p}/task/${p}/children`).trim().split(/\s+/).filter(Boolean).map(Number);
    for (const c of children) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}
const readFileSyncSafe = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};
/** Resident memory (bytes) of the workerd processes under npm start. */
const workerdRss = (root: number) =>
  descendants(root)
    .filter((p) => readFileSyncSafe(`/proc/${p}/cmdline`).includes('workerd'))
    .reduce((sum, p) => sum + Number(/VmRSS:\s+(\d+)/.exec(readFileSyncSafe(`/proc/${p}/status`))?.[1] ?? 0) * 1024, 0);

interface Client {
  received: number[];
  close(): void;
}

async function openClient(base: string, path: string, key: string): Promise<Client> {
  const controller = new AbortController();
  let response = await fetch(`${base}${path}`, { headers: { 'X-API-Key': key }, signal: controller.signal });
  // A loaded machine may answer an opening 503 (with Retry-After): open again, as a client would.
  for (let i = 0; i < 10 && response.status === 503; i++) {
    await response.text();
    await sleep(1_000);
    response = await fetch(`${base}${path}`, { headers: { 'X-API-Key': key }, signal: controller.signal });
  }
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  const received: number[] = [];
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          if (buffer.slice(0, cut).includes('\nevent: item\n')) received.push(Date.now());
          buffer = buffer.slice(cut + 2);
        }
      }
    } catch {}
  })();
  return { received, close: () => controller.abort() };
}

export async function run(argv: string[]): Promise<void> {
  const seconds = Number(arg(argv, 'seconds', '45'));
  const sizes = arg(argv, 'sizes', '10,100,500').split(',').map(Number);
  log(`npm start on :${PORT} (DATA_DIR ${DATA_DIR}), live steps every ${STEP_MS / 1000} s`);
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(PORT), DATA_DIR, LIVE_STEP_MS: String(STEP_MS), LIVE_NEW_URLS: '2' },
    detached: true,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${PORT}`;
  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error('npm start exited');
      if (i > 300) throw new Error('npm start not ready in 300 s');
      if (
        await fetch(`${base}/openapi.json`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      await sleep(1_000);
    }
    // npm start's gateway (its gateway.json): connect.ts reads DATA_DIR when it loads.
    process.env.DATA_DIR = DATA_DIR;
    // Through npm start's gateway (whatever database it fronts), not a gateway of this process.
    delete process.env.DATABASE_URL;
    delete process.env.REDIS_URL;
    const { connect, storeOf } = await import('../lib/connect');
    const conn = await connect();
    // npm start's gateway: its Redis (the signal) and its request counters.
    const info = JSON.parse(readFileSync(join(DATA_DIR, 'gateway.json'), 'utf8'));
    const store = storeOf(info, 'the streams bench');
    const stats = async () => (await (await fetch(new URL('/stats', info.neonHttpUrl))).json()) as { sql: number; redis: number };
    // Fresh internal keys per configuration (all markets, 100 streams each, no quota): the slots of the
    // streams just closed are let go when their server side notices.
    let made = 0;
    const keysFor = async (n: number) => {
      const keys: string[] = [];
      for (let i = 0; i < Math.ceil(n / 100); i++)
        keys.push((await createKey(conn.db, { projectId: null, kind: 'internal', name: `bench-streams-${made++}`, countries: null })).key);
      return keys;
    };
    const countries = ['us', 'gb', 'de', 'fr', 'in'];
    const categories = [
      '/Sports',
      '/News',
      '/Business',
      '/Technology',
      '/Entertainment',
      '/Science',
      '/Health',
      '/Travel',
      '/Food',
      '/Arts',
    ];
    const mixed = countries.flatMap((c) => categories.map((cat) => `/v2/live/stream?country=${c}&category=${encodeURIComponent(cat)}`));
    // Commit times: the signal the live step bumps after it commits, polled every 25 ms.
    const bumps: number[] = [];
    let polls = 0;
    let polling = true;
    const poller = (async () => {
      let last: unknown;
      while (polling) {
        const v = await store.redis.get(signalKey(store, 'feed')).catch(() => last);
        polls++;
        if (last !== undefined && v !== last) bumps.push(Date.now());
        last = v;
        await sleep(25);
      }
    })();
    const measure = async (label: string, paths: string[]) => {
      const keys = await keysFor(paths.length);
      const rss0 = workerdRss(child.pid!);
      // Opened 20 at a time, as reconnecting clients arrive.
      const clients: Client[] = [];
      for (let i = 0; i < paths.length; i += 20)
        clients.push(...(await Promise.all(paths.slice(i, i + 20).map((p, j) => openClient(base, p, keys[Math.floor((i + j) / 100)])))));
      await sleep(5_000);
      const rss1 = workerdRss(child.pid!);
      const s0 = await stats();
      const p0 = polls;
      const t0 = Date.now();
      await sleep(seconds * 1000);
      const s1 = await stats();
      const minutes = (Date.now() - t0) / 60_000;
      const latencies: number[] = [];
      for (const c of clients)
        for (const at of c.received) {
          if (at < t0) continue;
          const bump = bumps.filter((b) => b <= at).at(-1);
          if (bump !== undefined) latencies.push(at - bump);
        }
      for (const c of clients) c.close();
      await sleep(3_000);
      return [
        label,
        paths.length,
        new Set(paths).size,
        latencies.length,
        latencies.length ? fmt(median(latencies), 0) : '-',
        latencies.length ? fmt(p95(latencies), 0) : '-',
        fmt((s1.sql - s0.sql) / minutes, 0),
        fmt((s1.redis - s0.redis - (polls - p0)) / minutes, 0),
        paths.length ? fmt((rss1 - rss0) / paths.length / 1024, 1) : '-',
      ];
    };
    const rows: (string | number)[][] = [await measure('no streams (baseline)', [])];
    for (const n of sizes) {
      rows.push(
        await measure(
          'one scope',
          Array.from({ length: n }, () => '/v2/live/stream?country=us'),
        ),
      );
      rows.push(
        await measure(
          '50 mixed scopes',
          Array.from({ length: n }, (_, i) => mixed[i % mixed.length]),
        ),
      );
    }
    polling = false;
    await poller;
    await conn.close();
    console.log(table(['streams', 'n', 'scopes', 'deliveries', 'p50 ms', 'p95 ms', 'SQL/min', 'Redis/min', 'KiB/stream'], rows));
  } finally {
    if (child.pid) process.kill(-child.pid, 'SIGTERM');
  }
}
