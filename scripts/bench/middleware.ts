// `npm run bench -- middleware [--requests 500] [--warmup 50]`
// Inside workerd (Miniflare, the runtime wrangler dev and the test pool use): a bench-only Worker
// (WORKER below, bundled by wrangler as a deploy would) against a local gateway in front of
// the real PostgreSQL (`bench_mw`, migrated) and the real Redis. Sequential requests to a bare
// route, a services-only route and a route behind the whole keyed chain, interleaved; median and
// p95 latency of each, the chain's added median, and the gateway's SQL and Redis request counters
// (GET /stats) per request.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The Miniflare that @cloudflare/vitest-plugin (the test pool) runs on; classic options API.
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { createKey } from '../../shared/admin/keys';
import { createProject } from '../../shared/admin/projects';
import { createDb } from '../../shared/db/client';
import { startGateway } from '../gateway/index';
import { dbUrl, ensureDatabase, PG_BASE } from './db';
import { fmt, fmtRatio, log, median, p95, ratio, table } from './stats';

const ROOT = join(import.meta.dirname, '..', '..');

const arg = (argv: string[], name: string, fallback: number) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};

/**
 * The bench-only Worker (never deployed): the product's app factory with one trivial route behind
 * the full keyed chain (services -> API key -> plan gates -> rate limit + quota), one behind the
 * request-scoped services only, and one bare route with no middleware. Written out at run time
 * rather than kept as a .ts file so that the Node typecheck (tsconfig.node.json) does not pull the
 * Workers-only modules in.
 */
const WORKER = (root: string) => `
import { createApp, createArea, services } from '${root}/shared/app.ts';

const app = createArea({ basePaths: ['/bench/chain'], auth: true });
app.get('/bench/chain/ping', (c) => c.json({ ok: true }));

const svc = createApp();
svc.use('/bench/services/*', services());
svc.get('/bench/services/ping', (c) => c.json({ ok: true }));
app.route('/', svc);

app.get('/bench/bare/ping', (c) => c.json({ ok: true }));

export default app;
`;

/** Bundles the bench Worker with wrangler (dry-run deploy), as `npm run build` does for the areas. */
function bundle(dir: string): string {
  const main = join(dir, 'middleware-worker.ts');
  writeFileSync(main, WORKER(ROOT));
  const config = join(dir, 'wrangler.json');
  writeFileSync(config, JSON.stringify({
    name: 'bench-middleware', main,
    compatibility_date: '2026-11-01', compatibility_flags: ['nodejs_compat'],
  }));
  const outdir = join(dir, 'out');
  execFileSync(join(ROOT, 'node_modules/.bin/wrangler'), ['deploy', '--dry-run', '--config', config, '--outdir', outdir], {
    stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, WRANGLER_SEND_METRICS: 'false' }, cwd: dir,
  });
  return join(outdir, 'middleware-worker.js');
}

export async function run(argv: string[]): Promise<void> {
  const requests = arg(argv, '--requests', 500);
  const warmup = arg(argv, '--warmup', 50);
  const dbName = 'bench_mw';

  const pg = await ensureDatabase(dbName);
  await pg.end();
  const gateway = await startGateway({ databaseUrl: `${PG_BASE}/postgres`, redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
  const bindings = {
    DATABASE_URL: dbUrl(dbName), NEON_HTTP_ENDPOINT: gateway.neonHttpUrl,
    UPSTASH_REDIS_REST_URL: gateway.upstashUrl, UPSTASH_REDIS_REST_TOKEN: gateway.upstashToken,
    REDIS_PREFIX: `bench_mw:${Date.now().toString(36)}`, APP_URL: 'https://app.example.com',
  };
  // A fresh tenant per run: Scale plan, limits far above what the run sends.
  const db = createDb(bindings);
  const project = await createProject(db, {
    name: `bench ${new Date().toISOString()}`, plan: 'scale', countries: ['US', 'GB'], rateLimitPerMinute: 1_000_000,
  });
  const { key } = await createKey(db, { projectId: project.id, name: 'bench' });

  const dir = mkdtempSync(join(tmpdir(), 'bench-mw-'));
  const stats = async () => (await (await fetch(new URL('/stats', gateway.neonHttpUrl))).json()) as { sql: number; redis: number };
  let mf: InstanceType<typeof Miniflare> | undefined;
  try {
    log('bundling the bench Worker with wrangler');
    const script = bundle(dir);
    mf = new Miniflare(convertV4MiniflareOptions({
      workers: [{ name: 'bench', modules: true, scriptPath: script, modulesRoot: join(dir, 'out'), compatibilityDate: '2026-11-01', compatibilityFlags: ['nodejs_compat'], bindings }],
    }));
    const url = await mf.ready;
    const routes = {
      bare: { path: '/bench/bare/ping', headers: {} },
      services: { path: '/bench/services/ping', headers: {} },
      chain: { path: '/bench/chain/ping', headers: { 'X-API-Key': key } },
    } as const;
    type Name = keyof typeof routes;
    const call = async (name: Name) => {
      const t = performance.now();
      const res = await mf!.dispatchFetch(new URL(routes[name].path, url), { headers: routes[name].headers });
      await res.arrayBuffer();
      const ms = performance.now() - t;
      if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status}`);
      return ms;
    };
    const names = Object.keys(routes) as Name[];
    for (let i = 0; i < warmup; i++) for (const n of names) await call(n);

    const times: Record<Name, number[]> = { bare: [], services: [], chain: [] };
    const counters: Record<Name, { sql: number; redis: number }> = { bare: { sql: 0, redis: 0 }, services: { sql: 0, redis: 0 }, chain: { sql: 0, redis: 0 } };
    for (let i = 0; i < requests; i++) {
      // Interleaved, order rotated: the three routes see the same machine noise.
      for (let k = 0; k < names.length; k++) {
        const n = names[(i + k) % names.length];
        const before = await stats();
        times[n].push(await call(n));
        const after = await stats();
        counters[n].sql += after.sql - before.sql;
        counters[n].redis += after.redis - before.redis;
      }
    }
    // The chain's work after the response (waitUntil) would land in the next request's window:
    // there is none for a 200, and the counters are read around each request, so each is its own.
    const base = median(times.bare);
    const rows = names.map((n) => [
      n === 'bare' ? 'bare handler (no middleware)' : n === 'services' ? 'services only (db, store, clock)' : 'full chain (services, key, plan gates, limits)',
      fmt(median(times[n]), 2), fmt(p95(times[n]), 2), fmt(median(times[n]) - base, 2), fmtRatio(ratio(median(times[n]), base)),
      fmt(counters[n].redis / requests, 3), fmt(counters[n].sql / requests, 3),
    ]);
    console.log(`\nmiddleware: ${requests} sequential requests per route after ${warmup} warm-up each, interleaved; ` +
      `workerd via Miniflare, gateway -> PostgreSQL 15 (${dbName}) + Redis 7; one warm key (Scale plan)\n`);
    console.log(table(['route', 'median ms', 'p95 ms', 'added median ms', 'vs bare', 'Redis req / request', 'SQL req / request'], rows));
  } finally {
    await mf?.dispose();
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
