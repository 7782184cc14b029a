// `npm run bench -- public [--scale bench|demo|test] [--cold 40] [--cached 300] [--bulk 30]`
// The public profile check inside workerd (the all-in-one Worker as wrangler bundles it, in
// Miniflare) against a local gateway in front of the real PostgreSQL (the loaded roll-ups
// database of that scale, migrated to this branch) and Redis. Interleaved, sequential:
//   cold    GET /public/platform-profile for a domain this isolate has not answered (SQL + limit),
//   cached  the same GET again from the same client (the isolate's cache),
//   bulk    POST .../bulk with 100 distinct domains (never cached),
//   bare    the Worker's JSON 404 (no middleware): the floor of a request through Miniflare.
// Medians, p95, ratio to bare, and the gateway's SQL and Redis requests per request.
import { runPrefix, startBenchServices } from '../lib/bench-harness';
import { ensureRollupsData, rollupsDb } from './rollups-load';
import { fmt, fmtRatio, log, median, p95, ratio, table } from './stats';

const arg = (argv: string[], name: string, fallback: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1]! : fallback;
};

type Name = 'bare' | 'cached' | 'cold' | 'bulk';

export async function run(argv: string[]): Promise<void> {
  const scale = arg(argv, '--scale', 'bench');
  const coldRuns = Number(arg(argv, '--cold', '40'));
  const cachedRuns = Number(arg(argv, '--cached', '300'));
  const bulkRuns = Number(arg(argv, '--bulk', '30'));
  // Never loads the bench set behind anyone's back: it must be there (npm run bench -- rollups:load).
  const { client: pg } = await ensureRollupsData({ scale });
  const dbName = rollupsDb(scale);
  const {
    rows: [counts],
  } = await pg.query<{ articles: string; publishers: string; profiles: string }>(
    `SELECT (SELECT count(*) FROM articles) AS articles, (SELECT count(*) FROM publishers) AS publishers,
            (SELECT count(*) FROM publishers WHERE profile_title IS NOT NULL) AS profiles`,
  );
  // The largest publishers first: the most articles to pick the newest six from.
  const { rows: domains } = await pg.query<{ domain: string }>(
    `SELECT a.domain FROM articles a GROUP BY a.domain ORDER BY count(*) DESC, a.domain LIMIT $1`,
    [Math.max(100, coldRuns + 1)],
  );
  await pg.end();
  if (domains.length < 2) throw new Error(`${dbName}: no publishing domains`);
  log(
    `${dbName}: ${fmt(Number(counts.articles))} articles, ${fmt(Number(counts.publishers))} publishers (${fmt(Number(counts.profiles))} with a profile)`,
  );

  const services = await startBenchServices({
    database: dbName,
    redisPrefix: runPrefix('bench_public'),
    bindings: { PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000000' },
  });
  try {
    log('bundling the all-in-one Worker with wrangler');
    const { mf, url } = await services.worker();
    const headers = { 'CF-Connecting-IP': '203.0.113.7' };
    // Small data sets (demo, test) have fewer publishers: the bulk is topped up with unknown domains.
    const hundred = [...domains.slice(0, 100).map((d) => d.domain), ...Array.from({ length: 100 }, (_, i) => `unknown-${i}.example`)].slice(
      0,
      100,
    );
    const hot = domains[domains.length - 1]!.domain;
    const colds = domains
      .slice(0, domains.length - 1)
      .map((d) => d.domain)
      .slice(0, coldRuns);
    const coldCount = colds.length;
    const request = (name: Name, i: number): [string, RequestInit, number] => {
      switch (name) {
        case 'bare':
          return ['/nope', { headers }, 404];
        case 'cached':
          return [`/public/platform-profile?domain=${hot}`, { headers }, 200];
        case 'cold':
          return [`/public/platform-profile?domain=${colds[i]}`, { headers }, 200];
        case 'bulk':
          return [
            '/public/platform-profile/bulk',
            { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ domains: hundred }) },
            200,
          ];
      }
    };
    const times: Record<Name, number[]> = { bare: [], cached: [], cold: [], bulk: [] };
    const counters: Record<Name, { sql: number; redis: number; n: number }> = {
      bare: { sql: 0, redis: 0, n: 0 },
      cached: { sql: 0, redis: 0, n: 0 },
      cold: { sql: 0, redis: 0, n: 0 },
      bulk: { sql: 0, redis: 0, n: 0 },
    };
    const call = async (name: Name, i: number, count: boolean) => {
      const [path, init, expected] = request(name, i);
      const before = count ? await services.counters() : undefined;
      const t = performance.now();
      const res = await mf.dispatchFetch(new URL(path, url), init as never);
      const body = await res.text();
      const ms = performance.now() - t;
      if (res.status !== expected) throw new Error(`${name} ${path}: HTTP ${res.status} ${body.slice(0, 300)}`);
      if (name === 'bulk' && (JSON.parse(body) as { results: unknown[] }).results.length !== 100) throw new Error('bulk: not 100 results');
      if (before) {
        // waitUntil work (a cached hit's count) lands after the response: let it finish before reading.
        await new Promise((r) => setTimeout(r, 5));
        const after = await services.counters();
        counters[name].sql += after.sql - before.sql;
        counters[name].redis += after.redis - before.redis;
        counters[name].n++;
      }
      return ms;
    };
    // Warm-up: isolate, bundle, connections, PostgreSQL buffers (a domain outside the cold set).
    for (let i = 0; i < 20; i++) {
      await call('bare', 0, false);
      await call('cached', 0, false);
    }
    await call('bulk', 0, false);

    const rounds = Math.max(coldCount, cachedRuns, bulkRuns);
    for (let i = 0; i < rounds; i++) {
      const names: Name[] = ['bare', 'cached'];
      if (i < coldCount) names.push('cold');
      if (i < bulkRuns) names.push('bulk');
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length]!;
        times[name].push(await call(name, i, true));
      }
    }
    const base = median(times.bare);
    const label: Record<Name, string> = {
      bare: 'bare route (JSON 404, no middleware)',
      cached: 'single check, cached (same domain, same client)',
      cold: 'single check, cold (domain not answered before)',
      bulk: 'bulk check, 100 distinct domains',
    };
    const rows = (['bare', 'cached', 'cold', 'bulk'] as Name[]).map((n) => [
      label[n],
      times[n].length,
      fmt(median(times[n]), 2),
      fmt(p95(times[n]), 2),
      fmtRatio(ratio(median(times[n]), base)),
      fmt(counters[n].sql / counters[n].n, 2),
      fmt(counters[n].redis / counters[n].n, 2),
    ]);
    console.log(`\npublic: sequential requests, interleaved; workerd via Miniflare, gateway -> PostgreSQL 15 (${dbName}) + Redis 7\n`);
    console.log(table(['request', 'n', 'median ms', 'p95 ms', 'vs bare', 'SQL req / request', 'Redis req / request'], rows));
    const cachedRatio = ratio(median(times.cached), base);
    console.log(
      `\ncached single check: ${fmtRatio(cachedRatio)} of the bare route (target <= 1.5x): ${cachedRatio <= 1.5 ? 'met' : 'NOT met'}`,
    );
    console.log(
      `bulk of 100: ${fmt(counters.bulk.sql / counters.bulk.n, 2)} SQL requests per request (target 1): ${counters.bulk.sql === counters.bulk.n ? 'met' : 'NOT met'}`,
    );
  } finally {
    await services.close();
  }
}
