// Stale answers while PostgreSQL is unreachable (shared/stale, docs/DECISIONS.md "Stale beats down"): the last good copy for the
// same key, path and query, marked with Cache-Status/Age; 503 for what was never answered; never
// another key's copy; never stale while the database answers.
import { beforeAll, describe, expect, it } from 'vitest';
import { geoRecords, NOW } from '../fixtures/geo';
import { seed } from '../helpers/seed';
import { createWorld, show, type Tenant, type World } from '../helpers/world';
import { IsolateCache } from '../../shared/cache/memory';
import { forgetStaleCopies, STALE_LIMITS, STALE_MAX_ANSWER_BYTES, STALE_TTL_MS } from '../../shared/stale/middleware';
import { announceAuthChange } from '../../shared/admin/announce';
import { revokeKey } from '../../shared/admin/keys';
import { updateProject } from '../../shared/admin/projects';
import { forgetCachedKeys } from '../../shared/auth/keys';
import { AUTH_VERSION_FRESH_MS } from '../../shared/auth/version';
import { createStore } from '../../shared/db/redis';
import { env } from 'cloudflare:test';

let world: World;
let tenant: Tenant;
let other: Tenant;

/** Answers kept for their normal lifetimes would answer instead of the stale tier: these tests keep none. */
const UNKEPT = { REFERENCE_CACHE_SECONDS: '0', ISOLATE_CACHE_SECONDS: '0' };
/** A Neon endpoint nobody listens on: every query fails to connect, as when PostgreSQL is down. */
const DOWN = { NEON_HTTP_ENDPOINT: 'http://127.0.0.1:9/sql', ...UNKEPT };
const up = (path: string, key: string) => world.call(path, { key, env: UNKEPT });
const down = (path: string, key: string, headers: Record<string, string> = {}) => world.call(path, { key, env: DOWN, headers });

beforeAll(async () => {
  world = await createWorld('stale');
  world.setNow(NOW);
  await seed(world, geoRecords());
  tenant = await world.tenant({ countries: ['US', 'GB', 'DE', 'FR'] });
  other = await world.tenant({ countries: ['US', 'GB', 'DE', 'FR'] });
});

describe('stale answers while the database is unreachable', () => {
  it('answers a read answered before from its last good copy, marked stale', async () => {
    const fresh = await up('/v1/tracking/lists?limit=5', tenant.key);
    expect(fresh.status, show(fresh)).toBe(200);
    expect(fresh.headers.get('Cache-Status')).toBeNull();
    const stale = await down('/v1/tracking/lists?limit=5', tenant.key);
    expect(stale.status, show(stale)).toBe(200);
    expect(stale.text).toBe(fresh.text);
    expect(stale.headers.get('Cache-Status')).toMatch(/^discovery-api; fwd=stale; fwd-status=503; ttl=-?\d+; detail=database-unreachable$/);
    expect(Number(stale.headers.get('Age'))).toBeGreaterThanOrEqual(0);
    expect(stale.headers.get('ETag')).toBe(fresh.headers.get('ETag'));
    expect(stale.headers.get('X-Request-Id')).toBeTruthy();
    // Revalidation works on the stale copy too.
    const revalidated = await down('/v1/tracking/lists?limit=5', tenant.key, { 'If-None-Match': fresh.headers.get('ETag')! });
    expect(revalidated.status).toBe(304);
  });

  it('answers 503 + Retry-After for what was never answered (other parameters)', async () => {
    const never = await down('/v1/tracking/lists?limit=6', tenant.key);
    expect(never.status, show(never)).toBe(503);
    expect(never.headers.get('Retry-After')).toBeTruthy();
    expect(never.headers.get('Cache-Status')).toBeNull();
  });

  it("never serves another key's copy", async () => {
    await up('/v1/geo/languages', tenant.key);
    const foreign = await down('/v1/geo/languages', other.key);
    expect(foreign.status, show(foreign)).toBe(503);
    const own = await down('/v1/geo/languages', tenant.key);
    expect(own.status, show(own)).toBe(200);
  });

  it('never answers stale while the database answers', async () => {
    await up('/v1/geo/regions', tenant.key);
    await down('/v1/geo/regions', tenant.key);
    const back = await up('/v1/geo/regions', tenant.key);
    expect(back.status).toBe(200);
    expect(back.headers.get('Cache-Status')).toBeNull();
    expect(back.headers.get('Age')).toBeNull();
    // An answer the database gave (a 404 for an unknown list) is never replaced by an old copy.
    const unknown = await up('/v1/tracking/lists/00000000-0000-4000-8000-000000000000', tenant.key);
    expect(unknown.status).toBe(404);
  });

  it("a recycled isolate (memory gone) answers from the location's cache, still per key", async () => {
    const fresh = await up('/v1/geo/regions/us', tenant.key);
    expect(fresh.status, show(fresh)).toBe(200);
    forgetStaleCopies();
    const stale = await down('/v1/geo/regions/us', tenant.key);
    expect(stale.status, show(stale)).toBe(200);
    expect(stale.text).toBe(fresh.text);
    expect(stale.headers.get('Cache-Status')).toMatch(/fwd=stale/);
    expect(stale.headers.get('Data-As-Of')).toBe(fresh.headers.get('Data-As-Of'));
    expect((await down('/v1/geo/regions/us', other.key)).status).toBe(503);
  });

  it('keeps bounded storage: 24 h, entries and bytes', () => {
    expect(STALE_TTL_MS).toBe(24 * 3600_000);
    expect(STALE_LIMITS.entries).toBeGreaterThan(0);
    expect(STALE_MAX_ANSWER_BYTES).toBeLessThan(STALE_LIMITS.bytes);
    // The memory tier's mechanism (shared/cache/memory.ts), at a small scale: oldest out first by
    // entries and by bytes, nothing larger than the byte bound, nothing past its lifetime.
    const copies = new IsolateCache<string>({ entries: 2, bytes: 10 });
    const t0 = 1_000_000;
    copies.set('a', 'a', 4, STALE_TTL_MS, t0);
    copies.set('b', 'b', 4, STALE_TTL_MS, t0);
    copies.set('c', 'c', 4, STALE_TTL_MS, t0);
    expect([copies.get('a', t0), copies.get('b', t0), copies.get('c', t0)]).toEqual([undefined, 'b', 'c']);
    copies.set('d', 'd', 8, STALE_TTL_MS, t0);
    expect([copies.get('b', t0), copies.get('c', t0), copies.get('d', t0)]).toEqual([undefined, undefined, 'd']);
    copies.set('e', 'e', 11, STALE_TTL_MS, t0);
    expect(copies.get('e', t0)).toBeUndefined();
    expect(copies.get('d', t0 + STALE_TTL_MS - 1)).toBe('d');
    expect(copies.get('d', t0 + STALE_TTL_MS)).toBeUndefined();
  });
});

describe('issue 46, finding 4: a stale copy only for the key and scope it was computed for', () => {
  const PATH = '/v1/geo/regions?window=7d';
  const store = () =>
    createStore({
      UPSTASH_REDIS_REST_URL: env.UPSTASH_REDIS_REST_URL,
      UPSTASH_REDIS_REST_TOKEN: env.UPSTASH_REDIS_REST_TOKEN,
      REDIS_PREFIX: world.env.REDIS_PREFIX ?? '',
    });
  /** A request with the database up: the driver the test's own queries share points at it again. */
  const reconnect = async () => expect((await up('/v1/geo/languages', tenant.key)).status).toBe(200);
  /** A tenant whose answer to PATH was kept, and the outage answers it that copy (the control). */
  async function kept() {
    await reconnect();
    const t = await world.tenant({ countries: ['US', 'GB', 'DE', 'FR'] });
    expect((await up(PATH, t.key)).status).toBe(200);
    expect((await down(PATH, t.key)).status, 'the control: same key, same scope').toBe(200);
    await reconnect();
    return t;
  }

  it('a key revoked before the outage gets the 503, not its old copies', async () => {
    const t = await kept();
    await revokeKey(world.db, t.keyId, new Date());
    await announceAuthChange(store());
    await new Promise((resolve) => setTimeout(resolve, AUTH_VERSION_FRESH_MS + 100));
    const reply = await down(PATH, t.key);
    expect(reply.status, show(reply)).toBe(503);
    expect(reply.headers.get('Cache-Status')).toBeNull();
  });

  it('a cancelled key the isolate does not hold (its lookup fails: entitlement_unavailable) gets the 503', async () => {
    const t = await kept();
    await updateProject(world.db, t.projectId, { subscriptionStatus: 'canceled' });
    forgetCachedKeys();
    const reply = await down(PATH, t.key);
    expect(reply.status, show(reply)).toBe(503);
    expect(reply.body.detail.code).toBe('entitlement_unavailable');
    forgetStaleCopies();
    expect((await down(PATH, t.key)).status, "nor the location cache's copy").toBe(503);
  });

  it('a key whose markets were narrowed gets the 503, not its old, wider answers', async () => {
    const t = await kept();
    await updateProject(world.db, t.projectId, { countries: ['GB'] });
    forgetCachedKeys();
    expect((await up('/v1/geo/languages', t.key)).status, 'the key read again, narrowed').toBe(200);
    const reply = await down(PATH, t.key);
    expect(reply.status, show(reply)).toBe(503);
    forgetStaleCopies();
    expect((await down(PATH, t.key)).status, "nor the location cache's copy").toBe(503);
  });
});
