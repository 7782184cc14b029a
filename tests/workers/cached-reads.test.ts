// Cached reads (README "Caching"): a warm geo read makes no SQL query (counted by a gateway no other file
// queries through), a cached aggregate's hit is byte-identical to its miss (body, ETag, headers),
// the isolate caches never serve another project's or another scope's answer, entries expire, and
// If-None-Match still answers 304 on a hit. Identical reads in flight in one isolate share one answer.
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../shared/admin/keys';
import { forgetIsolateCaches } from '../../shared/cache/memory';
import { createList } from '../../shared/admin/lists';
import { readConfig } from '../../shared/env';
import { createStore } from '../../shared/db/redis';
import { geoRecords, NOW as GEO_NOW } from '../fixtures/geo';
import { dataset, DOMAINS } from '../fixtures/oracle';
import { NOW as TRENDS_NOW, trendRecords } from '../fixtures/trends';
import { seed } from '../helpers/seed';
import { callWithOutcome } from '../helpers/outcomes';
import { createWorld, show, type Tenant, type World } from '../helpers/world';

const AGG_NOW = '2026-11-10T10:30:00.000Z';
/** The quiet gateway (tests/setup/global.ts): only this file sends SQL through it. */
const QUIET_SQL = { NEON_HTTP_ENDPOINT: new URL('/sql', env.QUIET_UPSTASH_URL).toString() };
const sqlCount = async () => ((await (await fetch(new URL('/stats', env.QUIET_UPSTASH_URL))).json()) as { sql: number }).sql;

async function sqlOf<T>(fn: () => Promise<T>): Promise<{ sql: number; value: T }> {
  const before = await sqlCount();
  const value = await fn();
  return { sql: (await sqlCount()) - before, value };
}

const sha256Tag = async (text: string) => {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return `"${[...bytes.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('')}"`;
};
/** The tag a key is sent: bound to the key (shared/http/etag.ts keyedTag), over the content's tag. */
const keyedTag = async (keyId: string, text: string) => sha256Tag(`${keyId}\n${await sha256Tag(text)}`);

const sameAnswer = (a: { text: string; headers: Headers }, b: { text: string; headers: Headers }) => {
  expect(b.text).toBe(a.text);
  for (const name of ['etag', 'content-type', 'cache-control', 'link']) expect(b.headers.get(name), name).toBe(a.headers.get(name));
};

describe('geo reads from the reference cache', () => {
  let world: World;
  let full: Tenant;
  let restricted: Tenant;

  beforeAll(async () => {
    world = await createWorld('cached_geo');
    world.setNow(GEO_NOW);
    await seed(world, geoRecords());
    full = await world.tenant({ countries: ['US', 'GB', 'DE', 'FR'] });
    restricted = await world.tenant({ countries: ['US', 'GB', 'DE', 'FR'] }, { countries: ['US'] });
  }, 120_000);

  it('a warm read makes no SQL query and answers the same bytes and ETag', async () => {
    const path = '/v1/geo/regions/us';
    const cold = await sqlOf(() => world.call(path, { key: full.key, env: QUIET_SQL }));
    expect(cold.value.status, show(cold.value)).toBe(200);
    expect(cold.sql, 'the miss reads the region (the key lookup may add one)').toBeGreaterThanOrEqual(4);
    const warm = await sqlOf(() => world.call(path, { key: full.key, env: QUIET_SQL }));
    expect(warm.value.status, show(warm.value)).toBe(200);
    expect(warm.sql).toBe(0);
    sameAnswer(cold.value, warm.value);
    expect(warm.value.headers.get('etag')).toBe(await keyedTag(full.keyId, warm.value.text));
  });

  it('every geo route is served warm without SQL', async () => {
    for (const path of ['/v1/geo/regions?with_stats=true', '/v2/geo/regions/GB/cities', '/v1/geo/languages?with_article_counts=true']) {
      const first = await world.call(path, { key: full.key });
      expect(first.status, show(first)).toBe(200);
      const warm = await sqlOf(() => world.call(path, { key: full.key, env: QUIET_SQL }));
      expect(warm.sql, path).toBe(0);
      sameAnswer(first, warm.value);
    }
  });

  it('20 concurrent identical cold reads query as much as one alone and answer the same bytes', async () => {
    const call = (path: string) => world.call(path, { key: full.key, env: QUIET_SQL });
    const alone = await sqlOf(() => call('/v1/geo/regions/fr'));
    expect(alone.value.status, show(alone.value)).toBe(200);
    const herd = await sqlOf(() => Promise.all(Array.from({ length: 20 }, () => call('/v1/geo/regions/de'))));
    for (const reply of herd.value) {
      expect(reply.status, show(reply)).toBe(200);
      expect(reply.text).toBe(herd.value[0].text);
    }
    expect(herd.sql, 'the first request reads; the other 19 join its answer').toBe(alone.sql);
  });

  it('two keys with different markets never share an answer', async () => {
    const wide = await world.call('/v1/geo/regions', { key: full.key });
    const narrow = await world.call('/v1/geo/regions', { key: restricted.key });
    const wideAgain = await world.call('/v1/geo/regions', { key: full.key });
    expect(narrow.body.regions.map((r: any) => r.alpha_2)).toEqual(['US']);
    expect(wide.body.regions.length).toBeGreaterThan(1);
    sameAnswer(wide, wideAgain);
    // The scope check runs before the cache: a restricted key is refused a region it cannot read, even warm.
    expect((await world.call('/v1/geo/regions/GB', { key: full.key })).status).toBe(200);
    expect((await world.call('/v1/geo/regions/GB', { key: restricted.key })).status).toBe(403);
  });

  it('entries expire after REFERENCE_CACHE_SECONDS', async () => {
    const short = { ...QUIET_SQL, REFERENCE_CACHE_SECONDS: '1' };
    const path = '/v1/geo/regions/DE/cities';
    expect((await world.call(path, { key: full.key, env: short })).status).toBe(200);
    expect((await sqlOf(() => world.call(path, { key: full.key, env: short }))).sql).toBe(0);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await sqlOf(() => world.call(path, { key: full.key, env: short }))).sql, 'expired: read again').toBeGreaterThan(0);
  });

  it('If-None-Match answers 304 on a hit', async () => {
    const path = '/v1/geo/regions?active_only=true';
    const first = await world.call(path, { key: full.key });
    const revalidated = await world.call(path, { key: full.key, headers: { 'If-None-Match': first.headers.get('etag')! } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('etag')).toBe(first.headers.get('etag'));
  });
});

describe('cached aggregates (tracking metrics)', () => {
  let world: World;
  let tenant: Tenant;
  let narrow: string;
  let other: Tenant;
  let listId: string;
  const path = () =>
    `/v1/tracking/lists/${listId}/metrics?period=custom&date_from=2026-11-04T00:00:00Z&date_to=2026-11-10T00:00:00Z&grain=hour&limit=200`;

  beforeAll(async () => {
    world = await createWorld('cached_aggregates');
    world.setNow(AGG_NOW);
    for (const batch of dataset()) await seed(world, batch);
    tenant = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
    // A second key of the same project, limited to one market.
    narrow = (await createKey(world.db, { projectId: tenant.projectId, kind: 'project', name: 'narrow', countries: ['US'] })).key;
    other = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
    listId = (
      await createList(
        world.db,
        { projectId: tenant.projectId, kind: 'publisher', name: 'rivals', items: DOMAINS.map((key) => ({ key })) },
        new Date(AGG_NOW),
      )
    ).id;
  }, 120_000);

  it('a hit (memory, then Redis) is byte-identical to the miss: body, ETag and headers', async () => {
    const miss = await callWithOutcome(world, path(), { key: tenant.key });
    expect(miss.status, show(miss)).toBe(200);
    expect(miss.outcome).toBe('miss');
    // The header tells only internal keys whether someone asked a moment ago (docs/SECURITY.md "Tenants").
    expect(miss.headers.get('x-aggregate-cache')).toBeNull();
    expect(miss.headers.get('etag')).toBe(await keyedTag(tenant.keyId, miss.text));
    const memory = await callWithOutcome(world, path(), { key: tenant.key });
    expect(memory.outcome).toBe('hit');
    sameAnswer(miss, memory);
    const redis = await callWithOutcome(world, path(), { key: tenant.key, env: { ISOLATE_CACHE_SECONDS: '0' } });
    expect(redis.outcome).toBe('hit');
    sameAnswer(miss, redis);
  });

  it('a warm hit makes no SQL query: the key and the list admission are held by the isolate too', async () => {
    const warm = `${path()}&offset=2`;
    const miss = await world.call(warm, { key: tenant.key, env: QUIET_SQL });
    expect(miss.status, show(miss)).toBe(200);
    const { sql, value: hit } = await sqlOf(() => callWithOutcome(world, warm, { key: tenant.key, env: QUIET_SQL }));
    expect(hit.outcome).toBe('hit');
    sameAnswer(miss, hit);
    expect(sql).toBe(0);
    // With the isolate caches off, the admission reads the list again.
    const cold = await sqlOf(() => world.call(warm, { key: tenant.key, env: { ...QUIET_SQL, ISOLATE_CACHE_SECONDS: '0' } }));
    expect(cold.sql).toBeGreaterThan(0);
  });

  it('a burst with a key the isolate has not read: the key, the list and the page are read once', async () => {
    const freshKey = async () => (await createKey(world.db, { projectId: tenant.projectId, kind: 'project', name: 'burst' })).key;
    const [a, b] = [await freshKey(), await freshKey()];
    forgetIsolateCaches();
    const alone = await sqlOf(() => world.call(`${path()}&offset=3`, { key: a, env: QUIET_SQL }));
    expect(alone.value.status, show(alone.value)).toBe(200);
    forgetIsolateCaches();
    const burst = await sqlOf(() =>
      Promise.all(Array.from({ length: 20 }, () => world.call(`${path()}&offset=4`, { key: b, env: QUIET_SQL }))),
    );
    for (const reply of burst.value) expect(reply.status, show(reply)).toBe(200);
    expect(burst.sql, 'the first request reads; the other 19 join its reads').toBe(alone.sql);
  });

  it('If-None-Match answers 304 on a hit', async () => {
    const first = await world.call(path(), { key: tenant.key });
    const revalidated = await world.call(path(), { key: tenant.key, headers: { 'If-None-Match': first.headers.get('etag')! } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe('');
  });

  it('another scope or another project never gets the cached answer', async () => {
    const wide = await world.call(path(), { key: tenant.key });
    const scoped = await callWithOutcome(world, path(), { key: narrow });
    expect(scoped.status, show(scoped)).toBe(200);
    expect(scoped.outcome).toBe('miss');
    expect(scoped.body.scope.markets).toEqual(['us']);
    expect(wide.body.scope.markets).toEqual(['de', 'gb', 'us']);
    // The list's admission runs beside the cache lookup and wins over a hit: another project's key is 404.
    const foreign = await world.call(path(), { key: other.key });
    expect(foreign.status, show(foreign)).toBe(404);
  });

  it('isolate memory expires after ISOLATE_CACHE_SECONDS; Redis is the shared copy', async () => {
    const short = { ISOLATE_CACHE_SECONDS: '1' };
    const fresh = `${path()}&offset=1`;
    expect((await callWithOutcome(world, fresh, { key: tenant.key, env: short })).outcome).toBe('miss');
    const store = createStore(readConfig({ ...world.env }));
    const keys = await store.redis.keys(`${store.prefix}agg:*`);
    expect(keys.length).toBeGreaterThan(0);
    await store.redis.del(...keys);
    expect((await callWithOutcome(world, fresh, { key: tenant.key, env: short })).outcome, 'still in memory').toBe('hit');
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await callWithOutcome(world, fresh, { key: tenant.key, env: short })).outcome, 'memory expired, Redis emptied').toBe('miss');
  });
});

describe('identical reads in flight in one isolate', () => {
  let world: World;
  let tenant: Tenant;

  beforeAll(async () => {
    world = await createWorld('cached_flights');
    await seed(world, trendRecords());
    world.setNow(TRENDS_NOW);
    tenant = await world.tenant({ plan: 'scale' });
  }, 120_000);

  it('20 concurrent identical cold reads of a kept route query as much as one alone and answer the same bytes', async () => {
    const call = (path: string) => world.call(path, { key: tenant.key, env: QUIET_SQL });
    expect((await call('/v1/trends?limit=3')).status).toBe(200); // the key and the watermark, held by the isolate
    const alone = await sqlOf(() => call('/v1/trends?limit=4'));
    expect(alone.value.status, show(alone.value)).toBe(200);
    expect(alone.sql).toBeGreaterThan(0);
    const herd = await sqlOf(() => Promise.all(Array.from({ length: 20 }, () => call('/v1/trends?limit=5'))));
    for (const reply of herd.value) {
      expect(reply.status, show(reply)).toBe(200);
      expect(reply.text).toBe(herd.value[0].text);
    }
    expect(herd.sql, 'the first request reads; the other 19 join its answer').toBe(alone.sql);
  });
});
