// The deployed area Workers (functions/<area>/index.ts) load each route on first use
// (shared/lazy-area.ts). Their manifests must name every route of the area in the area app's
// order, and each must answer exactly as the all-in-one Worker does: same status, body and headers
// for every route, without a key, for unknown paths and methods.
import { beforeAll, describe, expect, it } from 'vitest';
import { articlesArea } from '../../functions/articles/app';
import articles from '../../functions/articles/index';
import { entitiesArea } from '../../functions/entities/app';
import entities from '../../functions/entities/index';
import { feedArea } from '../../functions/feed/app';
import feed from '../../functions/feed/index';
import { geoArea } from '../../functions/geo/app';
import geo from '../../functions/geo/index';
import mcp from '../../functions/mcp/index';
import { publicArea } from '../../functions/public/app';
import publicWorker from '../../functions/public/index';
import { trackingArea } from '../../functions/tracking/app';
import tracking from '../../functions/tracking/index';
import { trendsArea } from '../../functions/trends/app';
import trends from '../../functions/trends/index';
import type { App } from '../../shared/app';
import { registeredPaths } from '../../shared/lazy-area';
import { geoRecords, NOW } from '../fixtures/geo';
import { seed } from '../helpers/seed';
import { createWorld, type CallOptions, type Reply, type World } from '../helpers/world';

const AREAS: [name: string, eager: () => App, lazy: typeof geo][] = [
  ['tracking', trackingArea, tracking], ['feed', feedArea, feed], ['public', publicArea, publicWorker], ['geo', geoArea, geo],
  ['trends', trendsArea, trends], ['entities', entitiesArea, entities], ['articles', articlesArea, articles],
];

/** Sample values for path parameters: real ids where the fixture has them, else well-formed unknowns. */
const PARAMS: Record<string, string> = {
  alpha_2: 'US', list_id: '00000000-0000-4000-8000-000000000001', url_id: '00000000-0000-4000-8000-000000000002',
  trend_id: '00000000-0000-4000-8000-000000000003', theme_id: '00000000-0000-4000-8000-000000000004',
  topic_id: '00000000-0000-4000-8000-000000000005', entity_name: 'Taylor Swift', id: '00000000-0000-4000-8000-000000000006',
};
const fill = (path: string) => path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(PARAMS[name] ?? 'x'));

/** Every route the area app registers (middleware aside), in registration order. */
const routesOf = (app: App) =>
  [...new Map(app.routes.filter((r) => r.method !== 'ALL').map((r) => [`${r.method} ${r.path}`, r])).values()];

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

describe.each(AREAS)('the %s Worker', (_name, eager, lazy) => {
  const routes = routesOf(eager());

  it('lists each route of the area once, in the area app\'s order', () => {
    // Geo's entries serve /v1/geo and /v2/geo alike (`:version{v[12]}`); parameter names aside.
    const normalize = (r: { method: string; path: string }) =>
      `${r.method} ${r.path.replace(':version{v[12]}', 'v1').replace(/:\w+/g, ':param')}`;
    const manifest = lazy.routes.filter((r) => r.method !== 'ALL').map(normalize);
    expect(manifest).toEqual([...new Set(routes.map(normalize))].filter((e) => !e.includes('/v2/geo/')));
    // Exactly the area's paths, parameter names included: a keyless request is served by stand-ins
    // registered at these paths, whose pattern its log line names (shared/lazy-area.ts).
    const registered = lazy.routes.filter((r) => r.method !== 'ALL').flatMap((r) => registeredPaths(r.path).map((p) => `${r.method} ${p}`));
    expect(registered.sort()).toEqual([...new Set(routes.map((r) => `${r.method} ${r.path}`))].sort());
  });

  it('answers every route as the all-in-one Worker does, with a key and without', async () => {
    for (const route of routes) {
      const path = fill(route.path);
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
      [`${first}/nope`, { key }], [first, { key, method: 'DELETE' }], [first, { key, method: 'HEAD' }],
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
    const keyed = await both(mcp as unknown as typeof geo, '/mcp', { key, method: 'POST', body, headers });
    expect(keyed.whole.status).toBe(200);
    expect(keyed.area).toEqual(keyed.whole);
    const anonymous = await both(mcp as unknown as typeof geo, '/mcp', { method: 'POST', body, headers });
    expect(anonymous.area).toEqual(anonymous.whole);
  });
});
