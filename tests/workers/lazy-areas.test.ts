// One route table per area (functions/<area>/routes.ts) builds its deployed Worker, whose routes
// load on first use (shared/http/lazy-area.ts), and its part of the all-in-one app (functions/combined-app.ts).
// Checked here: each table line's module registers exactly the route(s) its line names, the tables
// together are every route of the all-in-one app in its order, and each area's Worker answers
// exactly as the all-in-one Worker does: same status, body and headers for every route, without a
// key, for unknown paths and methods.
import { beforeAll, describe, expect, it } from 'vitest';
import { combinedApp, ROUTE_TABLES } from '../../functions/combined-app';
import articles from '../../functions/articles/index';
import { articlesRoutes } from '../../functions/articles/routes';
import entities from '../../functions/entities/index';
import { entitiesRoutes } from '../../functions/entities/routes';
import feed from '../../functions/feed/index';
import { feedRoutes } from '../../functions/feed/routes';
import geo from '../../functions/geo/index';
import { geoRoutes } from '../../functions/geo/routes';
import mcp from '../../functions/mcp/index';
import { mcpRoutes } from '../../functions/mcp/routes';
import { TOOL_SPECS } from '../../functions/mcp/tools';
import publicWorker from '../../functions/public/index';
import { publicRoutes } from '../../functions/public/routes';
import tracking from '../../functions/tracking/index';
import { trackingRoutes } from '../../functions/tracking/routes';
import trends from '../../functions/trends/index';
import { trendsRoutes } from '../../functions/trends/routes';
import { areaApp } from '../../shared/http/area-app';
import { loadersOf, optionsOf, routesOf, type Loader, type RouteTable } from '../../shared/http/route-table';
import { geoRecords, NOW } from '../fixtures/geo';
import { seed } from '../helpers/seed';
import { createWorld, type CallOptions, type Reply, type World } from '../helpers/world';

const AREAS: [name: string, table: RouteTable, worker: typeof geo][] = [
  ['tracking', trackingRoutes, tracking],
  ['feed', feedRoutes, feed],
  ['public', publicRoutes, publicWorker],
  ['geo', geoRoutes, geo],
  ['trends', trendsRoutes, trends],
  ['entities', entitiesRoutes, entities],
  ['articles', articlesRoutes, articles],
];

/** Sample values for path parameters: real ids where the fixture has them, else well-formed unknowns. */
const PARAMS: Record<string, string> = {
  alpha_2: 'US',
  list_id: '00000000-0000-4000-8000-000000000001',
  url_id: '00000000-0000-4000-8000-000000000002',
  trend_id: '00000000-0000-4000-8000-000000000003',
  theme_id: '00000000-0000-4000-8000-000000000004',
  topic_id: '00000000-0000-4000-8000-000000000005',
  entity_name: 'Taylor Swift',
  id: '00000000-0000-4000-8000-000000000006',
};
const fill = (path: string) => path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(PARAMS[name] ?? 'x'));

/** Every route an app registers (middleware aside), as `METHOD path`, in registration order. */
const registered = (app: { routes: { method: string; path: string }[] }) => [
  ...new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`)),
];
/** The table's routes as `METHOD path`, mirror expanded, in the area app's order. */
const lines = (table: RouteTable, load?: Loader) =>
  routesOf(table)
    .filter(([, , l]) => !load || l === load)
    .map(([method, path]) => `${method} ${path}`);

const HEADERS = ['content-type', 'etag', 'cache-control', 'link', 'retry-after', 'access-control-allow-origin'];
/** /v1/usage counts the request itself: its counters (and so its ETag) move between the two calls. */
const USAGE_COUNTERS = /"used":\d+,"remaining":\d+/g;
const comparable = (reply: Reply, path: string) => {
  const usage = path.startsWith('/v1/usage');
  return {
    status: reply.status,
    text: usage ? reply.text.replace(USAGE_COUNTERS, '"used":n,"remaining":n') : reply.text,
    headers: Object.fromEntries(HEADERS.map((h) => [h, usage && h === 'etag' ? 'moves' : reply.headers.get(h)])),
  };
};

let world: World;
let key: string;

beforeAll(async () => {
  world = await createWorld('lazy_areas');
  world.setNow(NOW);
  await seed(world, geoRecords());
  ({ key } = await world.tenant({ countries: ['US', 'GB', 'DE', 'FR'], rateLimitPerMinute: 100_000 }));
});

/** The same request through the all-in-one Worker and through the area's own. */
async function both(worker: typeof geo, path: string, options: CallOptions = {}) {
  const whole = await world.call(path, options);
  const area = await world.call(path, { ...options, worker: worker as unknown as CallOptions['worker'] });
  return { whole: comparable(whole, path), area: comparable(area, path) };
}

describe('the route tables', () => {
  it('are together every route of the all-in-one app, in its order', async () => {
    const app = await combinedApp();
    const own = ['GET /openapi.json', 'GET /docs', 'GET /'];
    expect(registered(app).filter((r) => !own.includes(r))).toEqual(ROUTE_TABLES.flatMap((table) => lines(table)));
  });

  it.each([...AREAS.map(([name, table]) => [name, table] as const), ['mcp', mcpRoutes] as const])(
    "name, in %s, exactly the route(s) each line's module registers",
    async (_name, table) => {
      const options = await optionsOf(table);
      for (const load of loadersOf(table)) expect(registered(areaApp(table, options, [await load()]))).toEqual(lines(table, load));
    },
  );
});

describe.each(AREAS)('the %s Worker', (_name, table, lazy) => {
  const routes = routesOf(table).map(([method, path]) => ({ method, path }));

  it("routes the table's lines, in its order", () => {
    expect(registered(lazy)).toEqual(lines(table));
  });
  it('answers every route as the all-in-one Worker does, with a key and without', async () => {
    for (const route of routes) {
      // A stream answers until it is told to end: a second is enough to compare the two Workers' answers.
      const path = `${fill(route.path)}${route.path.endsWith('/stream') ? '?max_seconds=1' : ''}`;
      const method = route.method;
      const body = method === 'POST' ? { domains: ['example.com'] } : undefined;
      const keyed = await both(lazy, path, { key, method, body });
      expect(keyed.area, `${method} ${path}`).toEqual(keyed.whole);
      expect(keyed.area.text, `${method} ${path} reached its route`).not.toContain('No route for');
      const anonymous = await both(lazy, path, { method, body });
      expect(anonymous.area, `${method} ${path} without a key`).toEqual(anonymous.whole);
    }
  });

  it('answers unknown paths, other methods and HEAD as the all-in-one Worker does', async () => {
    const first = fill(routes[0].path);
    for (const [path, options] of [
      [`${first}/nope`, { key }],
      [first, { key, method: 'DELETE' }],
      [first, { key, method: 'HEAD' }],
      [first, { method: 'OPTIONS', headers: { Origin: 'https://site.example', 'Access-Control-Request-Method': 'GET' } }],
      [`${first}?${'x'.repeat(10_000)}=1`, { key }],
    ] as [string, CallOptions][]) {
      const { whole, area } = await both(lazy, path, options);
      expect(area, `${options.method ?? 'GET'} ${path.slice(0, 80)}`).toEqual(whole);
    }
  });
});

describe('the MCP Worker', () => {
  it('answers POST /mcp as the all-in-one Worker does', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const headers = { Accept: 'application/json, text/event-stream' };
    const keyed = await both(mcp, '/mcp', { key, method: 'POST', body, headers });
    expect(keyed.whole.status).toBe(200);
    expect(keyed.area).toEqual(keyed.whole);
    const anonymous = await both(mcp, '/mcp', { method: 'POST', body, headers });
    expect(anonymous.area).toEqual(anonymous.whole);
    for (const method of ['GET', 'DELETE']) {
      for (const options of [{ key, method }, { method }]) {
        const other = await both(mcp, '/mcp', options);
        expect(other.area, `${method} /mcp${options.key ? '' : ' without a key'}`).toEqual(other.whole);
      }
    }
  });

  it('answers every tools/call as the all-in-one Worker does', async () => {
    const headers = { Accept: 'application/json, text/event-stream' };
    // get_usage counts the calls themselves: its counters move between the two.
    for (const { name, path } of TOOL_SPECS.filter((t) => t.name !== 'get_usage')) {
      const args = Object.fromEntries([...path.matchAll(/\{(\w+)\}/g)].map(([, p]) => [p, PARAMS[p]]));
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } };
      const { whole, area } = await both(mcp, '/mcp', { key, method: 'POST', body, headers });
      expect(whole.status, name).toBe(200);
      const requestId = /"request_id":"[^"]+"/;
      expect({ ...area, text: area.text.replace(requestId, '') }, name).toEqual({ ...whole, text: whole.text.replace(requestId, '') });
    }
  });
});

describe("the public Worker's plain lines", () => {
  const plain = routesOf(publicRoutes).filter(([, , , handler]) => handler);

  it('are the script, which reads nothing', () => {
    expect(plain.map(([method, path]) => `${method} ${path}`)).toEqual(['GET /public/widget.js']);
  });

  it('answer as the all-in-one Worker does: conditional, HEAD, preflight and hostile requests', async () => {
    for (const [, path] of plain) {
      const first = await world.call(path, { worker: publicWorker as unknown as CallOptions['worker'] });
      const etag = first.headers.get('etag');
      expect(first.status).toBe(200);
      expect(etag).toMatch(/^"[0-9a-f]+"$/);
      for (const options of [
        {},
        { headers: { 'If-None-Match': etag! } },
        { headers: { 'If-None-Match': '"other"' } },
        { method: 'HEAD' },
        { method: 'OPTIONS', headers: { Origin: 'https://site.example', 'Access-Control-Request-Method': 'GET' } },
      ] as CallOptions[]) {
        const { whole, area } = await both(publicWorker, path, options);
        expect(area, `${options.method ?? 'GET'} ${path} ${JSON.stringify(options.headers ?? {})}`).toEqual(whole);
      }
      for (const hostile of [`${path}?${'x'.repeat(10_000)}=1`, `${path}?a=%00`]) {
        const { whole, area } = await both(publicWorker, hostile);
        expect(area.status, hostile.slice(0, 60)).toBeGreaterThanOrEqual(400);
        expect(area, hostile.slice(0, 60)).toEqual(whole);
      }
    }
  });

  it('answer with the database and Redis unreachable: no round trip on their path', async () => {
    const down = { NEON_HTTP_ENDPOINT: 'http://127.0.0.1:1/sql', UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:1' };
    for (const [, path] of plain) {
      const { whole, area } = await both(publicWorker, path, { env: down });
      expect(area.status).toBe(200);
      expect(area).toEqual(whole);
    }
  });
});
