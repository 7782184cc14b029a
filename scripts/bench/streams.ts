// `npm run bench -- streams [--seconds 45] [--sizes 10,100,500] [--wave 20]`: push streams against
// `npm start` while its live simulation runs (a step every 5 s here, LIVE_STEP_MS), for 10, 100 and 500
// concurrent streams of one scope and of 50 mixed scopes: delivery latency from the commit (the
// ingest's signal bump, seen by polling Redis every 25 ms) to the client (p50/p95), database queries
// (per minute and per new-data event) and Redis calls per minute at npm start's gateway, without the
// bench's own calls (it names itself to the gateway: X-Gateway-Caller), the statements that ran, and
// workerd's memory per open stream (a window without streams is the baseline). Streams open `--wave`
// at a time, each retried after its Retry-After on 503 or 429; internal keys allow 100 streams each
// (STREAM_CAP.enterprise), so a configuration uses one fresh key per 100 streams. Between
// configurations the bench waits until the server has given back every slot of the streams it closed
// (until then they still count: a closed client is noticed at its stream's next writes).
// Results: docs/BENCHMARKS.md "Streams".
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKey } from '../../shared/admin/keys';
import type { Store } from '../../shared/db/redis';
import { signalKey } from '../../shared/streams/signal';
import { slotsKey } from '../../shared/streams/slots';
import { type GatewayCounts, gatewayStats, startNpmStart } from '../lib/bench-harness';
import { fmt, log, median, p95, table } from './stats';

const ROOT = join(import.meta.dirname, '..', '..');
const PORT = Number(process.env.PORT ?? 8745);
const DATA_DIR = process.env.BENCH_DATA_DIR ?? join(ROOT, '.data', 'bench-streams');
const STEP_MS = 5_000;
/** How the bench names itself to the gateway, whose counters then tell its calls from the Workers'. */
const CALLER = 'bench-streams';
/** Streams per internal key (shared/streams/slots.ts STREAM_CAP.enterprise). */
const PER_KEY = 100;

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
  /** Answers before the 200 (503/429, each retried after its Retry-After). */
  retries: number;
  close(): void;
}

/** Opens a stream as a client that honours Retry-After would, for at most `deadlineMs`. */
async function openClient(base: string, path: string, key: string, deadlineMs = 180_000): Promise<Client> {
  const controller = new AbortController();
  const until = Date.now() + deadlineMs;
  let retries = 0;
  let response: Response;
  for (;;) {
    response = await fetch(`${base}${path}`, { headers: { 'X-API-Key': key }, signal: controller.signal });
    if (response.status === 200) break;
    const body = await response.text();
    if ((response.status !== 503 && response.status !== 429) || Date.now() > until) throw new Error(`${path}: ${response.status} ${body}`);
    retries++;
    await sleep(Math.max(1, Number(response.headers.get('Retry-After')) || 1) * 1000);
  }
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
  return { received, retries, close: () => controller.abort() };
}

export async function run(argv: string[]): Promise<void> {
  const seconds = Number(arg(argv, 'seconds', '45'));
  const sizes = arg(argv, 'sizes', '10,100,500').split(',').map(Number);
  const wave = Number(arg(argv, 'wave', '20'));
  log(`npm start on :${PORT} (DATA_DIR ${DATA_DIR}), live steps every ${STEP_MS / 1000} s`);
  const api = await startNpmStart({
    dataDir: DATA_DIR,
    port: PORT,
    env: { LIVE_STEP_MS: String(STEP_MS), LIVE_NEW_URLS: '2' },
    echoStderr: true,
  });
  const { base, child } = api;
  try {
    // npm start's gateway (its gateway.json): connect.ts reads DATA_DIR when it loads.
    process.env.DATA_DIR = DATA_DIR;
    // Through npm start's gateway (whatever database it fronts), not a gateway of this process.
    delete process.env.DATABASE_URL;
    delete process.env.REDIS_URL;
    const { connect } = await import('../lib/connect');
    const conn = await connect();
    // npm start's gateway: its Redis (the signal, the slots) and its request counters. The bench sends
    // its own Redis commands itself, naming itself, so they are counted apart from the Workers' calls.
    const info = api.gateway();
    const redis = async (...command: (string | number)[]) => {
      const r = await fetch(info.upstashUrl, {
        method: 'POST',
        headers: { Authorization: `Bearer ${info.upstashToken}`, 'X-Gateway-Caller': CALLER },
        body: JSON.stringify(command),
      });
      return ((await r.json()) as { result: unknown }).result;
    };
    // npm start's Redis has no prefix (REDIS_PREFIX unset).
    const store = { key: (...parts: string[]) => parts.join(':') } as Store;
    const counts = gatewayStats(info);
    const stats = (spans = false) => counts.read(spans);
    const workers = (s: GatewayCounts) => ({
      sql: s.sql - (s.callers[CALLER]?.sql ?? 0),
      redis: s.redis - (s.callers[CALLER]?.redis ?? 0),
    });
    // Fresh internal keys per configuration (all markets, 100 streams each, no quota).
    let made = 0;
    const keysFor = async (n: number) => {
      const keys: { id: string; key: string }[] = [];
      for (let i = 0; i < Math.ceil(n / PER_KEY); i++)
        keys.push(await createKey(conn.db, { projectId: null, kind: 'internal', name: `bench-streams-${made++}`, countries: null }));
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
    let polling = true;
    const poller = (async () => {
      let last: unknown;
      while (polling) {
        const v = await redis('GET', signalKey(store, 'feed')).catch(() => last);
        if (last !== undefined && v !== last) bumps.push(Date.now());
        last = v;
        await sleep(25);
      }
    })();
    const statements: string[] = [];
    const measure = async (label: string, paths: string[]) => {
      const keys = await keysFor(paths.length);
      const rss0 = workerdRss(child.pid!);
      // Opened `wave` at a time, as reconnecting clients arrive.
      const opening = Date.now();
      const clients: Client[] = [];
      for (let i = 0; i < paths.length; i += wave)
        clients.push(
          ...(await Promise.all(paths.slice(i, i + wave).map((p, j) => openClient(base, p, keys[Math.floor((i + j) / PER_KEY)].key)))),
        );
      const openS = (Date.now() - opening) / 1000;
      await sleep(5_000);
      const rss1 = workerdRss(child.pid!);
      await counts.reset();
      const s0 = workers(await stats());
      const t0 = Date.now();
      await sleep(seconds * 1000);
      const all = await stats(true);
      const s1 = workers(all);
      const t1 = Date.now();
      const minutes = (t1 - t0) / 60_000;
      const events = bumps.filter((b) => b >= t0 && b < t1).length;
      const latencies: number[] = [];
      for (const c of clients)
        for (const at of c.received) {
          if (at < t0) continue;
          const bump = bumps.filter((b) => b <= at).at(-1);
          if (bump !== undefined) latencies.push(at - bump);
        }
      // Which statements ran in the window (the spans since the reset; the bench sends no SQL meanwhile).
      const byText = new Map<string, number>();
      for (const s of all.spans ?? []) {
        if (!s.label.startsWith('sql')) continue;
        // A batch's label lists its statements; the last is the read (the first sets the session).
        const text = s.label
          .split(' | ')
          .at(-1)!
          .replace(/^sql( batch)?: /, '')
          .slice(0, 100);
        byText.set(text, (byText.get(text) ?? 0) + 1);
      }
      statements.push(
        `${label}, ${paths.length} streams: ${s1.sql - s0.sql} statements over ${events} new-data events`,
        ...[...byText].sort((a, b) => b[1] - a[1]).map(([text, n]) => `  ${String(n).padStart(4)}  ${text}`),
      );
      for (const c of clients) c.close();
      // The server lets a stream go when it notices its client left: wait for every slot to be given back.
      const closing = Date.now();
      for (;;) {
        const open = (await Promise.all(keys.map((k) => redis('ZCARD', slotsKey(store, k.id))))).reduce((a: number, b) => a + Number(b), 0);
        if (open === 0 || Date.now() - closing > 120_000) {
          if (open) log(`${open} of ${paths.length} slots still taken after 120 s`);
          break;
        }
        await sleep(500);
      }
      const letGoS = (Date.now() - closing) / 1000;
      log(
        `${label} x${paths.length}: opened in ${fmt(openS, 1)} s (${clients.reduce((n, c) => n + c.retries, 0)} retries), let go in ${fmt(letGoS, 1)} s`,
      );
      return [
        label,
        paths.length,
        new Set(paths).size,
        events,
        latencies.length,
        latencies.length ? fmt(median(latencies), 0) : '-',
        latencies.length ? fmt(p95(latencies), 0) : '-',
        fmt((s1.sql - s0.sql) / minutes, 0),
        events ? fmt((s1.sql - s0.sql) / events, 1) : '-',
        fmt((s1.redis - s0.redis) / minutes, 0),
        paths.length ? fmt((rss1 - rss0) / paths.length / 1024, 1) : '-',
        fmt(openS, 1),
        clients.reduce((n, c) => n + c.retries, 0),
        fmt(letGoS, 1),
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
    for (const line of statements) log(line);
    console.log(
      table(
        [
          'streams',
          'n',
          'scopes',
          'events',
          'deliveries',
          'p50 ms',
          'p95 ms',
          'SQL/min',
          'SQL/event',
          'Redis/min',
          'KiB/stream',
          'open s',
          'retries',
          'let go s',
        ],
        rows,
      ),
    );
  } finally {
    await api.stop();
  }
}
