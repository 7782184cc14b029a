// Sequential round trips from the Worker to the data region, counted at the gateway (the distant
// gateway of tests/setup/global.ts delays every SQL and Redis request, so requests of one wave
// overlap and count once; scripts/gateway/trips.ts). Work after the answer (limit reconciliation,
// cache writes) is left out: the test marks the moment it received the answer. A regression on any
// route shape fails here.
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../functions/index';
import { createList } from '../../shared/admin/lists';
import { forgetCachedKeys } from '../../shared/auth/keys';
import { forgetAuthVersions } from '../../shared/auth/version';
import { forgetIsolateCaches } from '../../shared/cache/memory';
import { edgeLimits } from '../../shared/limits/edge';
import { queryRows } from '../../shared/db/raw';
import { dataset, TRENDS } from '../fixtures/oracle';
import { seed } from '../helpers/seed';
import { createWorld, type Tenant, type World } from '../helpers/world';

let world: World;
let tenant: Tenant;
let strict: Tenant;
let list: string;
const NOW = '2026-11-10T10:30:00.000Z';
const DISTANT = {
  UPSTASH_REDIS_REST_URL: env.DISTANT_UPSTASH_URL,
  NEON_HTTP_ENDPOINT: new URL('/sql', env.DISTANT_UPSTASH_URL).toString(),
};
const gateway = (path: string, method = 'GET') => fetch(new URL(path, env.DISTANT_UPSTASH_URL), { method });

beforeAll(async () => {
  world = await createWorld('round_trips');
  world.setNow(NOW);
  for (const batch of dataset()) await seed(world, batch);
  tenant = await world.tenant({ plan: 'scale' });
  strict = await world.tenant({ plan: 'scale', limitsMode: 'strict' });
  const entities = await queryRows<{ id: string }>(world.db, 'SELECT id::text FROM entities ORDER BY normalized_name LIMIT 3');
  list = (await createList(world.db, {
    projectId: tenant.projectId, kind: 'entity', name: 'People',
    items: [...entities.map((e) => ({ key: e.id })), { key: 'Grace Hopper' }, { key: 'Nobody Known' }],
  }, new Date(NOW))).id;
}, 120_000);

/** One request through the distant gateway; answers its status and its sequential round trips. */
async function trips(path: string, key: string, body?: unknown): Promise<{ status: number; trips: number }> {
  await gateway('/stats/reset', 'POST');
  const ctx = createExecutionContext();
  const request = new Request(`http://api.test${path}`, body === undefined
    ? { headers: { 'X-API-Key': key } }
    : { method: 'POST', headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': '203.0.113.7' }, body: JSON.stringify(body) });
  const response = await worker.fetch(request as never, { ...world.env, ...DISTANT } as never, ctx);
  await gateway('/stats/mark', 'POST');
  await response.text();
  await waitOnExecutionContext(ctx);
  const stats = (await (await gateway('/stats')).json()) as { sequential: number };
  return { status: response.status, trips: stats.sequential };
}

/** Warms the key (its lookup, its limits state) and the route; then the measured request. */
async function warm(path: string, key: string) {
  for (let i = 0; i < 3; i++) expect((await trips(path, key)).status).toBe(200);
  return trips(path, key);
}

describe('warm answers: no round trip (edge limits + isolate memory)', () => {
  for (const path of [
    '/v1/geo/languages', '/v1/geo/regions', '/v1/entities/trending?region=us&limit=5',
    // Kept in the isolate by shared/cache/edge-answers.ts.
    '/v1/trends', '/v1/themes', '/v1/entities', '/v1/articles', '/v1/analytics/categories', '/v1/tracking/lists',
  ]) {
    it(`GET ${path}`, async () => {
      expect(await warm(path, tenant.key)).toEqual({ status: 200, trips: 0 });
    });
  }
});

describe('strict mode: a warm answer costs the one limit check', () => {
  it('GET /v1/geo/languages', async () => {
    expect(await warm('/v1/geo/languages', strict.key)).toEqual({ status: 200, trips: 1 });
  });
});

describe('fresh answers: at most 2 sequential round trips (Redis, then PostgreSQL)', () => {
  it('GET /v1/geo/regions with parameters nobody asked before', async () => {
    await warm('/v1/geo/languages', tenant.key); // the key and its limits are warm; the route's answer is not
    const fresh = await trips('/v1/geo/regions?window=7d', tenant.key);
    expect(fresh.status).toBe(200);
    expect(fresh.trips).toBeLessThanOrEqual(2);
  });

  // Each route warm first (the key, the list's or trend's admission, the feed's windows slid to the
  // hour), then a question nobody asked before.
  for (const [name, path] of [
    ['a tracking list\'s metrics', (q: string) => `/v1/tracking/lists/${list}/metrics?${q ? 'period=30d&limit=7' : 'period=7d'}`],
    ['a tracking list\'s roll-up', (q: string) => `/v1/tracking/lists/${list}/rollup?${q ? 'period=30d&country=gb' : 'period=7d'}`],
    ['a trend\'s roll-up', (q: string) => `/v1/trends/${TRENDS[0]}/rollup?${q ? 'period=30d&country=us' : 'period=7d'}`],
    ['category analytics', (q: string) => `/v1/analytics/categories?${q ? 'period=30d&limit=3' : 'period=7d'}`],
    ['a feed page', (q: string) => `/v2/feed?limit=${q ? 9 : 5}`],
    ['live', (q: string) => `/v2/live?since_minutes=90&limit=${q ? 9 : 5}`],
  ] as const) {
    it(`${name} with parameters nobody asked before`, async () => {
      await warm(path(''), tenant.key);
      const fresh = await trips(path('fresh'), tenant.key);
      expect(fresh.status).toBe(200);
      expect(fresh.trips).toBeLessThanOrEqual(2);
    });
  }

  it('POST /public/platform-profile/bulk: the per-IP limit spent once, then the profiles', async () => {
    const fresh = await trips('/public/platform-profile/bulk', '', { domains: ['example.com', 'unknown-1.example'] });
    expect(fresh.status).toBe(200);
    expect(fresh.trips).toBeLessThanOrEqual(2);
  });

  it('GET /v1/entities/trending with parameters nobody asked before', async () => {
    await warm('/v1/geo/languages', tenant.key);
    const fresh = await trips('/v1/entities/trending?region=us&limit=7', tenant.key);
    expect(fresh.status).toBe(200);
    expect(fresh.trips).toBeLessThanOrEqual(2);
  });
});

describe('a cold isolate', () => {
  it('looks the key of its first request up once (the first auth version read keeps a key read just now)', async () => {
    await warm('/v1/geo/languages', tenant.key);
    forgetIsolateCaches();
    forgetCachedKeys();
    forgetAuthVersions();
    edgeLimits.expire();
    expect((await trips('/v1/geo/languages', tenant.key)).status).toBe(200);
    const { spans } = (await (await gateway('/stats?spans=1')).json()) as { spans: { label: string }[] };
    expect(spans.filter((s) => s.label.includes('"api_keys"')).length).toBe(1);
  });
});
