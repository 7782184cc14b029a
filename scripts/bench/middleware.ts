// `npm run bench -- middleware [--requests 500] [--warmup 50] [--lines 1000000|all | --db <name>] [--items 200]`
// Inside workerd (Miniflare, the runtime wrangler dev and the test pool use): a bench-only Worker
// (WORKER below, bundled by wrangler as a deploy would) against a local gateway in front of
// the real PostgreSQL (the bench set's first million lines, loaded once and reused; --lines, --db) and the real Redis.
// Sequential requests to a bare route, a services-only route, a route behind the whole keyed chain
// and two cached reads behind the same chain (geo regions; a cached aggregate of --items rows),
// interleaved; median and p95 latency of each, the chain's added median, the cached reads' ratio
// to the keyed trivial route, and the gateway's SQL and Redis request counters (GET /stats) per request.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKey } from '../../shared/admin/keys';
import { createProject } from '../../shared/admin/projects';
import { createDb } from '../../shared/db/client';
import { runPrefix, startBenchServices } from '../lib/bench-harness';
import { startBundled, type RunningWorker } from '../lib/worker';
import { benchDataDb } from './rollups-load';
import { fmt, fmtRatio, log, median, p95, ratio, table } from './stats';

const ROOT = join(import.meta.dirname, '..', '..');

const arg = (argv: string[], name: string, fallback: number) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};

/** The keyed trivial route of the bench Worker: the baseline of cached reads (here and in `bench tracking`). */
export const KEYED_PING = '/bench/chain/ping';

/**
 * The bench-only Worker (never deployed): the product's app factory with one trivial route behind
 * the full keyed chain (services -> API key -> plan gates -> rate limit + quota), one behind the
 * request-scoped services only, and one bare route with no middleware; behind the same chain, the
 * geo area and a cached aggregate (shared/aggregates/) whose value is `items` metric-like rows.
 * Written out at run time rather than kept as a .ts file so that the Node typecheck
 * (tsconfig.node.json) does not pull the Workers-only modules in.
 */
const WORKER = (root: string) => `
import { createApp, createArea, services } from '${root}/shared/http/app.ts';
import { serveAggregateResponse } from '${root}/shared/aggregates/serve.ts';
import geo from '${root}/functions/geo/index.ts';

const app = createArea({ basePaths: ['/bench/chain'], auth: true });
app.get('${KEYED_PING}', (c) => c.json({ ok: true }));

/** A metrics-like page of n rows (a 12-point sparkline each: ~0.8 KB per row, near the real metrics page). */
const page = (n) => ({
  items: Array.from({ length: n }, (_, i) => ({
    key: '/m/0' + i.toString(36), name: 'Entity ' + i, type: 'entity', impressions: 1000 + i * 7, impressions_prev: 900 + i,
    publications: 40 + i, publishers: 12 + (i % 9), position_avg: 3.25 + (i % 7) / 10,
    sparkline: Array.from({ length: 12 }, (_, d) => ({ t: new Date(Date.UTC(2026, 1, d + 1)).toISOString(), impressions: (i * 31 + d * 17) % 997 })),
  })),
});
const rows = { name: 'bench.rows', warm: false, compute: async (_services, r) => page(r.items) };
const texts = new Map();
app.get('/bench/chain/aggregate', (c) => serveAggregateResponse(c, rows, { items: Number(c.req.query('items') ?? 200) }));
// The geo Worker as deployed (its routes load on first use: the warmup loads them), behind its own chain.
for (const prefix of ['/v1/geo/*', '/v2/geo/*']) app.all(prefix, (c) => geo.fetch(c.req.raw, c.env, c.executionCtx));

const svc = createApp();
svc.use('/bench/services/*', services());
svc.get('/bench/services/ping', (c) => c.json({ ok: true }));
app.route('/', svc);

app.get('/bench/bare/ping', (c) => c.json({ ok: true }));
// The same bytes as the cached aggregate with no middleware and no cache: what the payload alone costs.
app.get('/bench/bare/payload', (c) => {
  const n = Number(c.req.query('items') ?? 200);
  if (!texts.has(n)) texts.set(n, JSON.stringify(page(n)));
  return c.body(texts.get(n), 200, { 'Content-Type': 'application/json' });
});

export default app;
`;

/** Bundles the bench Worker with wrangler (dry-run deploy), as `npm run build` does for the areas. */
function bundle(dir: string): string {
  const main = join(dir, 'middleware-worker.ts');
  writeFileSync(main, WORKER(ROOT));
  const config = join(dir, 'wrangler.json');
  writeFileSync(
    config,
    JSON.stringify({
      name: 'bench-middleware',
      main,
      compatibility_date: '2026-11-01',
      compatibility_flags: ['nodejs_compat'],
    }),
  );
  const outdir = join(dir, 'out');
  execFileSync(join(ROOT, 'node_modules/.bin/wrangler'), ['deploy', '--dry-run', '--config', config, '--outdir', outdir], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    cwd: dir,
  });
  return join(outdir, 'middleware-worker.js');
}

/** Bundles and starts the bench Worker with `bindings` (scripts/lib/bench-harness.ts: BenchServices.worker). */
export function startBenchWorker(bindings: Record<string, string>): Promise<RunningWorker> {
  log('bundling the bench Worker with wrangler');
  return startBundled((dir) => ({ scriptPath: bundle(dir), modulesRoot: join(dir, 'out') }), bindings);
}

export async function run(argv: string[]): Promise<void> {
  const requests = arg(argv, '--requests', 500);
  const warmup = arg(argv, '--warmup', 50);
  const items = arg(argv, '--items', 200);
  // The geo and aggregate rows read real data: the bench set's first million lines unless --db/--lines.
  const dbName = await benchDataDb(argv);
  const services = await startBenchServices({ database: dbName, redisPrefix: runPrefix('bench_mw') });
  // A fresh tenant per run: Scale plan, limits far above what the run sends.
  const db = createDb(services.bindings);
  const project = await createProject(db, {
    name: `bench ${new Date().toISOString()}`,
    plan: 'scale',
    countries: ['US', 'GB'],
    rateLimitPerMinute: 1_000_000,
  });
  const { key } = await createKey(db, { projectId: project.id, name: 'bench' });

  try {
    const { mf, url } = await services.worker({}, startBenchWorker);
    const keyed = { 'X-API-Key': key };
    const routes = {
      bare: { path: '/bench/bare/ping', headers: {}, label: 'bare handler (no middleware)' },
      services: { path: '/bench/services/ping', headers: {}, label: 'services only (db, store, clock)' },
      chain: { path: KEYED_PING, headers: keyed, label: 'full chain (services, key, plan gates, limits)' },
      geo: {
        path: '/v1/geo/regions?with_stats=true',
        headers: keyed,
        label: 'full chain + geo regions with_stats (cached reference read)',
      },
      aggregate: { path: `/bench/chain/aggregate?items=${items}`, headers: keyed, label: `full chain + cached aggregate (${items} rows)` },
      payload: {
        path: `/bench/bare/payload?items=${items}`,
        headers: {},
        label: `bare handler sending the aggregate's bytes (${items} rows)`,
      },
    } as const;
    type Name = keyof typeof routes;
    const bytes: Partial<Record<string, number>> = {};
    const call = async (name: Name) => {
      const t = performance.now();
      const res = await mf.dispatchFetch(new URL(routes[name].path, url), { headers: routes[name].headers });
      const body = await res.arrayBuffer();
      const ms = performance.now() - t;
      if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status}`);
      bytes[name] = body.byteLength;
      return ms;
    };
    const names = Object.keys(routes) as Name[];
    for (let i = 0; i < warmup; i++) for (const n of names) await call(n);

    const times = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Name, number[]>;
    const counters = Object.fromEntries(names.map((n) => [n, { sql: 0, redis: 0 }])) as Record<Name, { sql: number; redis: number }>;
    for (let i = 0; i < requests; i++) {
      // Interleaved, order rotated: the three routes see the same machine noise.
      for (let k = 0; k < names.length; k++) {
        const n = names[(i + k) % names.length];
        const before = await services.counters();
        times[n].push(await call(n));
        const after = await services.counters();
        counters[n].sql += after.sql - before.sql;
        counters[n].redis += after.redis - before.redis;
      }
    }
    // The chain's work after the response (waitUntil) would land in the next request's window:
    // there is none for a 200, and the counters are read around each request, so each is its own.
    const base = median(times.bare);
    const keyedBase = median(times.chain);
    const rows = names.map((n) => [
      routes[n].label,
      fmt(bytes[n] ?? 0),
      fmt(median(times[n]), 2),
      fmt(p95(times[n]), 2),
      fmt(median(times[n]) - base, 2),
      fmtRatio(ratio(median(times[n]), base)),
      fmtRatio(ratio(median(times[n]), keyedBase)),
      fmt(counters[n].redis / requests, 3),
      fmt(counters[n].sql / requests, 3),
    ]);
    console.log(
      `\nmiddleware: ${requests} sequential requests per route after ${warmup} warm-up each, interleaved; ` +
        `workerd via Miniflare, gateway -> PostgreSQL 15 (${dbName}) + Redis 7; one warm key (Scale plan)\n`,
    );
    console.log(
      table(
        [
          'route',
          'body bytes',
          'median ms',
          'p95 ms',
          'added median ms',
          'vs bare',
          'vs keyed trivial',
          'Redis req / request',
          'SQL req / request',
        ],
        rows,
      ),
    );
    console.log(
      `\ncached-read ratio (median / keyed trivial route, same run): geo ${fmtRatio(ratio(median(times.geo), keyedBase))}, ` +
        `aggregate ${fmtRatio(ratio(median(times.aggregate), keyedBase))}`,
    );
  } finally {
    await services.close();
  }
}
