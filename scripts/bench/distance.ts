// `npm run bench -- distance [--rtt 50] [--runs 3] [--only <substring>] [--spans]`
// Latency from anywhere: the all-in-one Worker as wrangler bundles it (workerd, Miniflare) over the
// demo data and tenants (scripts/lib/demo-stack.ts), with the local gateway adding `--rtt` ms to every
// SQL and Redis request (the Worker -> data-region hop of production). Every route (each GET, and the
// bulk POST), demo `full` key, in three shapes:
//   warm   the same request again (the key, its limits and the answer are known to the isolate),
//   fresh  a parameter combination nobody asked before (the key and its limits are warm),
//   idle   the same, asked after 1.1 s without a request (the auth version read is over 1 s old, so the
//          limits take their synchronous Redis call: what a caller with a request now and then sees),
//   cold   the warm request on a new isolate (empty module state; Redis and the database stay warm).
// Each shape runs with the delay and, beside it in the same run, without: sequential round trips are
// printed twice, as counted at the gateway (the critical path of request spans, scripts/gateway/trips.ts)
// and as (ms with delay - ms without) / rtt, the black-box measure. Medians over --runs. `--spans`
// prints the SQL and Redis requests of each delayed request, in the order they arrived.
import { gatewayStats } from '../lib/bench-harness';
import { startStack, type Stack } from '../lib/demo-stack';
import { discoverRouteIds, type RouteIds } from '../lib/route-ids';
import { fmt, log, median, table } from './stats';

const arg = (argv: string[], name: string, fallback: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1]! : fallback;
};

interface Ids extends RouteIds {
  entityList: string;
}

interface Route {
  name: string;
  /** The request; `n` varies a parameter (fresh), undefined for the warm one. */
  path(ids: Ids, n?: number): string;
  body?: (n?: number) => unknown;
  /** False where no parameter can make a new question (the answer never varies). */
  fresh?: boolean;
}

const limit = (n?: number, base = 5) => (n === undefined ? base : base + 1 + (n % 40));
const ROUTES: Route[] = [
  { name: 'GET /v1/usage', path: () => '/v1/usage', fresh: false },
  // The key is warmed with /v1/geo/languages, so its one other question (with_counts) is the only fresh one: left out.
  { name: 'GET /v1/geo/languages', path: () => '/v1/geo/languages', fresh: false },
  {
    name: 'GET /v1/geo/regions',
    path: (_, n) => `/v1/geo/regions?with_stats=${n === undefined || n % 2 === 0}&active_only=${n !== undefined && (n >> 1) % 2 === 1}`,
  },
  { name: 'GET /v1/geo/regions/{alpha_2}', path: () => '/v1/geo/regions/us', fresh: false },
  {
    name: 'GET /v1/geo/regions/{alpha_2}/cities',
    path: (_, n) => `/v1/geo/regions/us/cities?active_only=${n !== undefined && n % 2 === 1}`,
  },
  { name: 'GET /v1/tracking/lists', path: () => '/v1/tracking/lists', fresh: false },
  { name: 'GET /v1/tracking/lists/{id}', path: (i) => `/v1/tracking/lists/${i.entityList}`, fresh: false },
  {
    name: 'GET .../lists/{id}/metrics (entity)',
    path: (i, n) => `/v1/tracking/lists/${i.entityList}/metrics?period=7d&limit=${limit(n, 20)}`,
  },
  {
    name: 'GET .../lists/{id}/rollup (entity)',
    path: (i, n) =>
      `/v1/tracking/lists/${i.entityList}/rollup?${n === undefined ? 'period=7d' : `period=${['24h', '30d'][n % 2]}&country=${['us', 'gb', 'all'][Math.floor(n / 2) % 3]}`}`,
  },
  { name: 'GET /v2/feed', path: (_, n) => `/v2/feed?limit=${limit(n)}` },
  { name: 'GET /v2/feed/{url_id}', path: (i) => `/v2/feed/${i.urlId}`, fresh: false },
  { name: 'GET /v2/live', path: (_, n) => `/v2/live?since_minutes=120&limit=${limit(n)}` },
  { name: 'GET /v1/trends', path: (_, n) => `/v1/trends?limit=${limit(n)}` },
  { name: 'GET /v1/trends/{id}', path: (i) => `/v1/trends/${i.trend}`, fresh: false },
  { name: 'GET /v1/trends/{id}/articles', path: (i, n) => `/v1/trends/${i.trend}/articles?limit=${limit(n)}` },
  {
    name: 'GET /v1/trends/{id}/rollup',
    path: (i, n) =>
      `/v1/trends/${i.trend}/rollup?period=${n === undefined ? '7d' : ['24h', '30d'][n % 2]}&country=${n === undefined ? 'all' : ['us', 'gb', 'all'][Math.floor(n / 2) % 3]}`,
  },
  { name: 'GET /v1/themes', path: () => '/v1/themes', fresh: false },
  { name: 'GET /v1/themes/{id}/topics', path: (i) => `/v1/themes/${i.theme}/topics`, fresh: false },
  { name: 'GET /v1/topics/{id}/trends', path: (i, n) => `/v1/topics/${i.topic}/trends?limit=${limit(n)}` },
  { name: 'GET /v1/entities', path: (_, n) => `/v1/entities?limit=${limit(n)}` },
  { name: 'GET /v1/entities/trending', path: (_, n) => `/v1/entities/trending?region=us&limit=${limit(n)}` },
  { name: 'GET /v1/entities/{name}', path: (i) => `/v1/entities/${encodeURIComponent(i.entity)}`, fresh: false },
  { name: 'GET /v1/entities/{name}/articles', path: (i, n) => `/v1/entities/${encodeURIComponent(i.entity)}/articles?limit=${limit(n)}` },
  { name: 'GET /v1/articles', path: (_, n) => `/v1/articles?limit=${limit(n)}` },
  { name: 'GET /v1/articles/{id}', path: (i) => `/v1/articles/${i.article}`, fresh: false },
  {
    name: 'GET /v1/analytics/categories',
    path: (_, n) => `/v1/analytics/categories?period=${n === undefined ? '7d' : ['24h', '30d'][n % 2]}`,
  },
  {
    name: 'GET /public/platform-profile',
    path: (_, n) => `/public/platform-profile?domain=${n === undefined ? 'citypost.co.uk' : `unknown-${n}.example`}`,
  },
  {
    name: 'POST /public/platform-profile/bulk',
    path: () => '/public/platform-profile/bulk',
    body: (n) => ({ domains: ['citypost.co.uk', `unknown-${n ?? 'warm'}.example`] }),
  },
];

/** Longer than AUTH_VERSION_FRESH_MS (shared/auth/version.ts): the idle shape's pause. */
const IDLE_MS = 1_100;
type Shape = 'warm' | 'fresh' | 'idle' | 'cold';

export async function run(argv: string[]): Promise<void> {
  const rtt = Number(arg(argv, '--rtt', '50'));
  const runs = Number(arg(argv, '--runs', '3'));
  const only = arg(argv, '--only', '');
  const spans = argv.includes('--spans');
  const stack = await startStack({
    database: `bench_distance_${process.pid}`,
    log,
    bindings: { PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000000' },
  });
  try {
    const key = stack.keys.find((k) => k.name === 'full')!.key;
    const ids = await discover(stack, key);
    const routes = ROUTES.filter((r) => r.name.includes(only));
    const rows: (string | number)[][] = [];
    let n = 0;
    for (const route of routes) {
      const counted: Record<Shape, number[]> = { warm: [], fresh: [], idle: [], cold: [] };
      const timed: Record<Shape, number[]> = { warm: [], fresh: [], idle: [], cold: [] };
      /** Statuses other than 200 (a 503 `computing` is the queued path's answer), to be seen beside the figures. */
      const odd: Record<Shape, Set<number>> = { warm: new Set(), fresh: new Set(), idle: new Set(), cold: new Set() };
      for (let r = 0; r < runs; r++) {
        for (const shape of ['warm', 'fresh', 'idle', 'cold'] as const) {
          const asks = shape === 'fresh' || shape === 'idle';
          if (asks && route.fresh === false) continue;
          const once = async (delay: number) => {
            if (shape === 'cold') await stack.worker.restart();
            // The key and its limits are warm in every shape but cold; the answer too when warm or cold.
            if (shape !== 'cold') await call(stack, key, '/v1/geo/languages');
            const warmPath = route.path(ids);
            if (!asks) await call(stack, key, warmPath, route.body?.());
            if (shape === 'cold') await stack.worker.restart();
            if (shape === 'idle') await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
            const fresh = n++;
            stack.gateway.setRtt(delay);
            try {
              const path = asks ? route.path(ids, fresh) : warmPath;
              return await measure(
                stack,
                key,
                path,
                route.body?.(asks ? fresh : undefined),
                spans && delay > 0 ? `${shape} ${path}` : undefined,
              );
            } finally {
              stack.gateway.setRtt(0);
            }
          };
          const near = await once(0);
          const far = await once(rtt);
          counted[shape].push(far.trips);
          for (const status of [near.status, far.status]) if (status !== 200) odd[shape].add(status);
          timed[shape].push((far.ms - near.ms) / rtt);
        }
      }
      const cell = (shape: Shape) =>
        counted[shape].length
          ? `${median(counted[shape])} (${fmt(median(timed[shape]), 1)})${odd[shape].size ? ` [${[...odd[shape]].join(',')}]` : ''}`
          : '-';
      rows.push([route.name, cell('warm'), cell('fresh'), cell('idle'), cell('cold')]);
      log(`${route.name}: warm ${cell('warm')}, fresh ${cell('fresh')}, idle ${cell('idle')}, cold ${cell('cold')}`);
    }
    log(
      `sequential round trips per request at ${rtt} ms: counted at the gateway (timed: (ms with delay - ms without) / ${rtt}); medians of ${runs}`,
    );
    console.log(table(['route (demo full key)', 'warm', 'fresh', 'fresh after 1.1 s idle', 'cold isolate'], rows));
  } finally {
    await stack.dispose();
  }
}

async function call(stack: Stack, key: string, path: string, body?: unknown): Promise<string> {
  return (await send(stack, key, path, body)).text;
}

async function send(stack: Stack, key: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(new URL(path, stack.url), {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'X-API-Key': key, 'CF-Connecting-IP': '203.0.113.9', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 500 && response.status !== 503) throw new Error(`${path}: ${response.status} ${text.slice(0, 200)}`);
  return { status: response.status, text };
}

/** One request: its wall time and its sequential round trips (the gateway's critical path up to the answer). */
async function measure(
  stack: Stack,
  key: string,
  path: string,
  body?: unknown,
  traced?: string,
): Promise<{ ms: number; trips: number; status: number }> {
  const stats = gatewayStats(stack.gateway);
  await stats.reset();
  const started = performance.now();
  const { status } = await send(stack, key, path, body);
  const ms = performance.now() - started;
  await stats.mark();
  const { sequential, spans } = await stats.read(Boolean(traced));
  if (traced && spans) {
    const t0 = spans[0]?.start ?? 0;
    log(
      `${traced}: ${sequential} sequential\n${spans.map((s) => `  ${fmt(s.start - t0, 0)}-${fmt(s.end - t0, 0)} ms  ${s.label}`).join('\n')}`,
    );
  }
  return { ms, trips: sequential, status };
}

/** Ids of the demo data the id routes need, read through the API itself; the demo's entity list. */
async function discover(stack: Stack, key: string): Promise<Ids> {
  const get = async (path: string) => JSON.parse(await call(stack, key, path)) as any;
  const lists = await get('/v1/tracking/lists');
  return { ...(await discoverRouteIds(get)), entityList: lists.lists.find((l: any) => l.kind === 'entity').id };
}
