// `npm run bench -- routes [--lines N|all | --db <name>] [--cold 3] [--warm 20]`
// Every GET route of the API (and the bulk POST) on a loaded bench set (`npm run bench:data`; the
// whole set when it is loaded), inside workerd (the all-in-one Worker as wrangler bundles it) behind
// the local gateway, with realistic parameter mixes: three key scopes (every market of the data; one
// market; a plan limited to one top-level category), each sort of the feed, first and deep pages.
//   cold  nothing cached: a second copy of the Worker with no isolate or reference cache, and the
//         aggregate cache in Redis cleared before each request (aggregates computed in the request);
//   warm  the same request again on the cached Worker; then 10 concurrent callers for --warm x 10
//         requests: warm requests per second.
// Database time is the time during which at least one SQL request of the request was in flight at
// the gateway (its spans, `GET /stats?spans=1`); end to end is the caller's wall time. Goal
// (docs/BENCHMARKS.md "Routes"): cold p50 <= 50 ms of database time and <= 150 ms end to end; aggregates that the default
// budget queues are marked (their compute time is what the cold figures show).
import { createKey } from '../../shared/admin/keys';
import { createList } from '../../shared/admin/lists';
import { createProject } from '../../shared/admin/projects';
import { SORT_KEYS } from '../../functions/feed/schemas';
import { createDb } from '../../shared/db/client';
import { STATEMENT_TIMEOUT_MS } from '../../shared/db/timeout';
import { connectTo, gatewayStats, runPrefix, startBenchServices } from '../lib/bench-harness';
import { discoverRouteIds, type RouteIds } from '../lib/route-ids';
import type { RunningWorker } from '../lib/worker';
import { feedWindowsCurrent } from './feed-windows';
import { benchDataDb } from './rollups-load';
import { fmt, log, median, p95, table } from './stats';

const arg = (argv: string[], name: string, fallback: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};

interface Scope {
  index: number;
  name: string;
  key: string;
  list: string;
  market: string;
}

interface Ids extends RouteIds {
  /** Publishers' domains for the public checks. */
  domains: string[];
}

interface Route {
  name: string;
  /** The requests of one scope (several: sorts, pages, periods). */
  variants(s: Scope, i: Ids): string[];
  body?: (i: Ids) => unknown;
  /** A cold request's path when the route keeps answers outside the caches the cold Worker turns off. */
  cold?: (s: Scope, i: Ids, run: number) => string;
  /** Queued past the default inline budget when big (the cold figure is its compute time). */
  aggregate?: boolean;
}

const enc = encodeURIComponent;

const ROUTES: Route[] = [
  { name: 'GET /v1/usage', variants: () => ['/v1/usage'] },
  { name: 'GET /v1/geo/languages', variants: () => ['/v1/geo/languages'] },
  { name: 'GET /v1/geo/regions', variants: () => ['/v1/geo/regions', '/v1/geo/regions?with_stats=true'] },
  { name: 'GET /v1/geo/regions/{alpha_2}', variants: (s) => [`/v1/geo/regions/${s.market}`] },
  { name: 'GET /v1/geo/regions/{alpha_2}/cities', variants: (s) => [`/v1/geo/regions/${s.market}/cities`] },
  { name: 'GET /v1/tracking/lists', variants: () => ['/v1/tracking/lists'] },
  { name: 'GET /v1/tracking/lists/{id}', variants: (s) => [`/v1/tracking/lists/${s.list}`] },
  {
    name: 'GET .../lists/{id}/metrics',
    aggregate: true,
    variants: (s) => [
      `/v1/tracking/lists/${s.list}/metrics?period=7d&limit=50`,
      `/v1/tracking/lists/${s.list}/metrics?period=30d&limit=50&offset=50`,
    ],
  },
  {
    name: 'GET .../lists/{id}/rollup',
    aggregate: true,
    variants: (s) => [
      `/v1/tracking/lists/${s.list}/rollup?period=7d`,
      `/v1/tracking/lists/${s.list}/rollup?period=30d&country=${s.market}`,
    ],
  },
  {
    name: 'GET /v2/feed',
    variants: () => [...SORT_KEYS.map((sort) => `/v2/feed?sort_by=${sort}&limit=50`), '/v2/feed?limit=50&offset=2000'],
  },
  { name: 'GET /v2/feed/{url_id}', variants: (_, i) => [`/v2/feed/${i.urlId}`] },
  { name: 'GET /v2/live', variants: () => ['/v2/live?since_minutes=60&limit=50', '/v2/live?since_minutes=240&limit=50&offset=500'] },
  { name: 'GET /v1/trends', variants: () => ['/v1/trends?limit=50', '/v1/trends?limit=50&offset=500'] },
  { name: 'GET /v1/trends/{id}', variants: (_, i) => [`/v1/trends/${i.trend}`] },
  { name: 'GET /v1/trends/{id}/articles', variants: (_, i) => [`/v1/trends/${i.trend}/articles?limit=50`] },
  {
    name: 'GET /v1/trends/{id}/rollup',
    aggregate: true,
    variants: (s, i) => [`/v1/trends/${i.trend}/rollup?period=7d`, `/v1/trends/${i.trend}/rollup?period=30d&country=${s.market}`],
  },
  { name: 'GET /v1/themes', variants: () => ['/v1/themes'] },
  { name: 'GET /v1/themes/{id}/topics', variants: (_, i) => [`/v1/themes/${i.theme}/topics`] },
  { name: 'GET /v1/topics/{id}/trends', variants: (_, i) => [`/v1/topics/${i.topic}/trends?limit=50`] },
  { name: 'GET /v1/entities', variants: () => ['/v1/entities?limit=50', '/v1/entities?limit=50&offset=2000'] },
  { name: 'GET /v1/entities/trending', aggregate: true, variants: (s) => [`/v1/entities/trending?region=${s.market}&limit=50`] },
  { name: 'GET /v1/entities/{name}', variants: (_, i) => [`/v1/entities/${enc(i.entity)}`] },
  { name: 'GET /v1/entities/{name}/articles', variants: (_, i) => [`/v1/entities/${enc(i.entity)}/articles?limit=50`] },
  { name: 'GET /v1/articles', variants: () => ['/v1/articles?limit=50', '/v1/articles?limit=50&offset=2000'] },
  { name: 'GET /v1/articles/{id}', variants: (_, i) => [`/v1/articles/${i.article}`] },
  {
    name: 'GET /v1/analytics/categories',
    variants: () => ['/v1/analytics/categories?period=7d', '/v1/analytics/categories?period=30d&top_level=true'],
  },
  {
    // The public edge keeps answers in isolate memory (functions/public/edge.ts): each cold request asks for a domain not asked before.
    name: 'GET /public/platform-profile',
    variants: (_, i) => [`/public/platform-profile?domain=${i.domains[0]}`],
    cold: (s, i, run) => `/public/platform-profile?domain=${i.domains[1 + ((s.index * 20 + run) % (i.domains.length - 1))]}`,
  },
  {
    name: 'POST /public/platform-profile/bulk',
    variants: () => ['/public/platform-profile/bulk'],
    body: (i) => ({ domains: i.domains.slice(0, 5) }),
  },
];

interface Sample {
  ms: number;
  dbMs: number;
}

export async function run(argv: string[]): Promise<void> {
  const dbName = await benchDataDb(argv);
  const coldRuns = Number(arg(argv, '--cold', '3'));
  const warmRuns = Number(arg(argv, '--warm', '20'));
  const only = arg(argv, '--only', '');
  const pg = await connectTo(dbName);
  const {
    rows: [data],
  } = await pg.query<{ observations: string; profiles: string; now: Date; markets: string[]; category: string }>(
    `SELECT (SELECT count(*) FROM observations) AS observations, (SELECT count(*) FROM url_profiles) AS profiles,
            (SELECT max(hour) FROM observations) + interval '30 minutes' AS now,
            (SELECT array_agg(DISTINCT country ORDER BY country) FROM market_days) AS markets,
            (SELECT key FROM url_dimensions WHERE kind = 'category' AND strpos(substr(key, 2), '/') = 0 GROUP BY key ORDER BY count(*) DESC LIMIT 1) AS category`,
  );
  const { rows: top } = await pg.query<{ id: string }>(
    `SELECT key AS id FROM url_dimensions WHERE kind = 'entity' GROUP BY key ORDER BY count(*) DESC LIMIT 200`,
  );
  const { rows: domains } = await pg.query<{ domain: string }>('SELECT domain FROM publishers ORDER BY domain LIMIT 61');
  // The jobs cron's slide, which no cron runs here: without it the first feed request builds every profile's windows.
  const seconds = await feedWindowsCurrent(pg, new Date(data.now));
  log(`feed windows current (${fmt(seconds, 1)} s)`);
  await pg.end();
  const now = new Date(data.now).toISOString();
  // The biggest market of the data is the one-market scope.
  const market = data.markets.includes('US') ? 'US' : data.markets[0];
  log(
    `data: ${fmt(Number(data.observations))} observations, ${fmt(Number(data.profiles))} profiles, ${data.markets.length} markets; now = ${now}`,
  );

  const services = await startBenchServices({
    database: dbName,
    redisPrefix: runPrefix('bench_routes'),
    now,
    bindings: {
      // Cold aggregates are computed in the request, so that their cost is measured, under the timeout of the
      // queue job that computes them in production (a request's 5 s cancels a roll-up of the whole bench set).
      AGGREGATE_INLINE_COST: '1000000000000',
      STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS.job),
      PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000000',
    },
  });
  const db = createDb(services.bindings);
  const scopes: Scope[] = [];
  const items = top.map((t) => ({ key: t.id }));
  const kinds: { name: string; plan: 'scale' | 'grow'; categories: string[] | null; countries: string[] | null }[] = [
    { name: 'every market', plan: 'scale', categories: null, countries: null },
    { name: 'one market', plan: 'scale', categories: null, countries: [market] },
    { name: `plan ${data.category}`, plan: 'grow', categories: [data.category], countries: null },
  ];
  for (const { name, plan, categories, countries } of kinds) {
    const p = await createProject(db, {
      name: `bench routes ${name} ${now}`,
      plan,
      categories,
      countries: data.markets,
      rateLimitPerMinute: 1_000_000,
    });
    const { key } = await createKey(db, { projectId: p.id, name: 'bench', countries });
    const list = await createList(db, { projectId: p.id, kind: 'entity', name: 'bench 200', items });
    scopes.push({ index: scopes.length, name, key, list: list.id, market: market.toLowerCase() });
  }

  try {
    log('bundling the all-in-one Worker with wrangler (twice: cached, and with no isolate or reference cache)');
    const warm = await services.worker();
    const cold = await services.worker({ ISOLATE_CACHE_SECONDS: '0', REFERENCE_CACHE_SECONDS: '0' });
    const stats = gatewayStats(services.gateway);
    const send = async (target: RunningWorker, scope: Scope, path: string, body?: unknown) => {
      const t = performance.now();
      const res = await target.mf.dispatchFetch(new URL(path, target.url), {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          'X-API-Key': scope.key,
          'CF-Connecting-IP': '203.0.113.9',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status === 403 && text.includes('endpoint_not_in_plan_scope')) throw new Closed();
      if (res.status !== 200) throw new Error(`${scope.name} ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
      return { ms: performance.now() - t, text };
    };
    /** One request with its database time: the union of its SQL spans at the gateway. */
    const measured = async (target: RunningWorker, scope: Scope, path: string, body?: unknown): Promise<Sample> => {
      await stats.reset();
      const { ms } = await send(target, scope, path, body);
      await stats.mark();
      const { spans = [] } = await stats.read(true);
      return { ms, dbMs: busy(spans.filter((s) => s.label.startsWith('sql'))) };
    };
    // Each scope's own ids: a URL or an article of another market is (rightly) 404 to the one-market key.
    const ids = new Map<Scope, Ids>();
    for (const scope of scopes) {
      const found = await discoverRouteIds((path) => send(warm, scope, path).then((r) => JSON.parse(r.text)));
      ids.set(scope, { ...found, domains: domains.map((d) => d.domain) });
    }

    const rows: (string | number)[][] = [];
    for (const route of ROUTES.filter((r) => r.name.includes(only))) {
      const coldSamples: Sample[] = [];
      const closed = new Set<string>();
      const warmMs: number[] = [];
      let rps = 0;
      for (const scope of scopes) {
        for (const path of route.variants(scope, ids.get(scope)!)) {
          const body = route.body?.(ids.get(scope)!);
          try {
            const own: Sample[] = [];
            for (let r = 0; r < coldRuns; r++) {
              await services.clearCache('agg');
              own.push(await measured(cold, scope, route.cold?.(scope, ids.get(scope)!, r) ?? path, body));
            }
            coldSamples.push(...own);
            // Which variant is slow: each one over the goal is named in the log.
            const dbP50 = median(own.map((o) => o.dbMs));
            if (dbP50 > 50) log(`  over: ${scope.name} ${path}: cold db p50 ${fmt(dbP50, 1)} ms`);
            await send(warm, scope, path, body);
            for (let r = 0; r < warmRuns; r++) warmMs.push((await send(warm, scope, path, body)).ms);
          } catch (err) {
            if (!(err instanceof Closed)) throw err;
            closed.add(scope.name);
          }
        }
      }
      // Warm throughput: the first scope's first variant, 10 callers at once.
      const first = ids.get(scopes[0])!;
      const [path] = route.variants(scopes[0], first);
      // Answered once more first: the cold runs of later variants cleared the aggregate cache, and a
      // follower gives up after 3 s on an aggregate the whole set takes longer to compute.
      await send(warm, scopes[0], path, route.body?.(first));
      const started = performance.now();
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          for (let r = 0; r < warmRuns; r++) await send(warm, scopes[0], path, route.body?.(first));
        }),
      );
      rps = (10 * warmRuns) / ((performance.now() - started) / 1000);
      const db = coldSamples.map((s) => s.dbMs);
      const e2e = coldSamples.map((s) => s.ms);
      const over = median(db) > 50 || median(e2e) > 150;
      rows.push([
        `${route.name}${route.aggregate ? ' (aggregate)' : ''}${closed.size ? ` (closed to ${[...closed].join(', ')})` : ''}`,
        coldSamples.length,
        fmt(median(db), 1),
        fmt(p95(db), 1),
        fmt(median(e2e), 1),
        fmt(p95(e2e), 1),
        fmt(median(warmMs), 1),
        fmt(rps, 0),
        over ? 'over' : 'ok',
      ]);
      log(
        `${route.name}: cold db p50 ${fmt(median(db), 1)} ms, e2e p50 ${fmt(median(e2e), 1)} ms; warm p50 ${fmt(median(warmMs), 1)} ms, ${fmt(rps, 0)} rps`,
      );
    }
    log(`scopes: ${scopes.map((s) => s.name).join(', ')}; cold x${coldRuns} per variant and scope, warm x${warmRuns}`);
    console.log(table(['route', 'cold n', 'db p50 ms', 'db p95 ms', 'e2e p50 ms', 'e2e p95 ms', 'warm p50 ms', 'warm rps', 'goal'], rows));
  } finally {
    await services.close();
  }
}

/** A 403 `endpoint_not_in_plan_scope`: the route is closed to the scope's plan, by design. */
class Closed extends Error {}

/** The time during which at least one span was open. */
function busy(spans: { start: number; end: number }[]): number {
  let total = 0;
  let until = -Infinity;
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    if (s.end <= until) continue;
    total += s.end - Math.max(s.start, until);
    until = s.end;
  }
  return total;
}
