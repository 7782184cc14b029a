// Limits decided at the edge (shared/limits/edge.ts) against the real Redis: the overshoot bounds
// with several isolates sending at once (each EdgeLimits instance plays one isolate), counters that
// end exact, reconciliation after a Redis outage, strict mode, 429s in both modes, and a revocation
// or plan change reaching the isolate within 2 s.
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { announceAuthChange } from '../../shared/admin/announce';
import { revokeKey } from '../../shared/admin/keys';
import { updateProject } from '../../shared/admin/projects';
import { resolveKey } from '../../shared/auth/keys';
import { EdgeLimits, MONTH_SLACK_MIN } from '../../shared/limits/edge';
import { monthOf } from '../../shared/limits/quota';
import { createStore, type Store } from '../../shared/db/redis';
import { articleRecords } from '../fixtures/articles';
import { seed } from '../helpers/seed';
import { clearOfMinuteTurn, createWorld, show, type Tenant, type World } from '../helpers/world';

let world: World;
let store: Store;
const PATH = '/v1/geo/languages';

beforeAll(async () => {
  world = await createWorld('edge_limits');
  store = storeAt(env.UPSTASH_REDIS_REST_URL);
});

/** The world's Redis namespace through the gateway at `url`. */
const storeAt = (url: string) =>
  createStore({
    UPSTASH_REDIS_REST_URL: url,
    UPSTASH_REDIS_REST_TOKEN: env.UPSTASH_REDIS_REST_TOKEN,
    REDIS_PREFIX: world.env.REDIS_PREFIX ?? '',
  });

/**
 * `isolates` isolates send `perIsolate` requests each, `wave` at a time per isolate, all isolates at
 * once; refused requests are refunded as the middleware does. Answers the number admitted while Redis
 * answered (a Redis call that times out on a loaded machine falls back to the per-isolate limiter, the
 * outage policy, whose admissions Redis never sees: not what the bounds are about), after every
 * background flush has settled.
 */
async function burst(tenant: Tenant, isolates: number, perIsolate: number, wave = 5): Promise<{ admitted: number; timeouts: number }> {
  const auth = (await resolveKey(world.db, tenant.key))!;
  let admitted = 0;
  let timeouts = 0;
  const background: Promise<unknown>[] = [];
  await Promise.all(
    Array.from({ length: isolates }, async () => {
      const isolate = new EdgeLimits();
      for (let sent = 0; sent < perIsolate; sent += wave) {
        await Promise.all(
          Array.from({ length: wave }, async () => {
            const { state } = await isolate.decide(store, auth, new Date(), { charge: true, later: (work) => background.push(work) });
            if (state.minute.mode !== 'redis') return void timeouts++;
            if (state.minute.success && (!state.month || state.month.success)) admitted++;
            else if (state.quotaKey) await store.redis.decr(state.quotaKey);
          }),
        );
      }
    }),
  );
  await Promise.all(background);
  return { admitted, timeouts };
}

/**
 * Every admitted request is in the quota counter. A Redis call that timed out may still have been
 * executed, and its hits are sent again (counted twice rather than lost): exact only without timeouts.
 */
async function expectCounted(tenant: Tenant, { admitted, timeouts }: { admitted: number; timeouts: number }) {
  if (timeouts === 0) expect(await quotaUsed(tenant)).toBe(admitted);
  else expect(await quotaUsed(tenant)).toBeGreaterThanOrEqual(admitted);
}

const quotaUsed = async (tenant: Tenant) =>
  Number(await store.redis.get<number>(store.key('quota', tenant.projectId, monthOf(new Date()))));

describe('edge limits with several isolates sending at once', () => {
  it('the per-minute limit overshoots by at most 10%, and the quota counter ends exact', async () => {
    // The sliding window must not turn during a burst (the previous minute's weight would blur the bound).
    await clearOfMinuteTurn(20_000);
    const tenant = await world.tenant({ plan: 'scale', rateLimitPerMinute: 100 });
    const sent = await burst(tenant, 4, 60);
    if (sent.timeouts === 0) expect(sent.admitted).toBeGreaterThanOrEqual(100);
    expect(sent.admitted).toBeLessThanOrEqual(110);
    await expectCounted(tenant, sent);
  });

  it('the monthly quota overshoots by at most max(1%, 5 requests), and its counter ends exact', async () => {
    const tenant = await world.tenant({ plan: 'start', rateLimitPerMinute: 10_000 });
    const sent = await burst(tenant, 4, 50);
    if (sent.timeouts === 0) expect(sent.admitted).toBeGreaterThanOrEqual(100);
    expect(sent.admitted).toBeLessThanOrEqual(100 + Math.max(1, MONTH_SLACK_MIN));
    await expectCounted(tenant, sent);
  });

  it('most warm requests are decided in the isolate, without a Redis call on their path', async () => {
    const tenant = await world.tenant({ plan: 'scale', rateLimitPerMinute: 1_000 });
    const auth = (await resolveKey(world.db, tenant.key))!;
    const isolate = new EdgeLimits();
    const background: Promise<unknown>[] = [];
    let local = 0;
    for (let i = 0; i < 20; i++) {
      const decision = await isolate.decide(store, auth, new Date(), { charge: true, later: (work) => background.push(work) });
      if (decision.local) local++;
      await Promise.all(background);
    }
    expect(local).toBe(19); // the first asks Redis, which grants the rest
    expect(await quotaUsed(tenant)).toBe(20);
  });

  it('an isolate that replaces a quiet one still holding its lease decides its warm requests at the edge', async () => {
    // A recycled isolate's lease lingers for LEASE_MS; it held only what it needed, so its successor is leased the rest.
    const tenant = await world.tenant({ plan: 'scale', rateLimitPerMinute: 1_000 });
    const auth = (await resolveKey(world.db, tenant.key))!;
    const background: Promise<unknown>[] = [];
    const later = (work: Promise<unknown>) => background.push(work);
    const quiet = new EdgeLimits();
    for (let i = 0; i < 3; i++) await quiet.decide(store, auth, new Date(), { charge: true, later }).then(() => Promise.all(background));
    const successor = new EdgeLimits();
    let local = 0;
    for (let i = 0; i < 10; i++) {
      if ((await successor.decide(store, auth, new Date(), { charge: true, later })).local) local++;
      await Promise.all(background);
    }
    expect(local).toBe(9);
    expect(await quotaUsed(tenant)).toBe(13);
  });
});

describe('reconciliation', () => {
  it('hits decided while Redis is unreachable are counted once it answers again', async () => {
    const tenant = await world.tenant({ plan: 'scale', rateLimitPerMinute: 1_000 });
    const auth = (await resolveKey(world.db, tenant.key))!;
    const dead = storeAt(env.DEAD_REDIS_UPSTASH_URL);
    const isolate = new EdgeLimits();
    const background: Promise<unknown>[] = [];
    const later = (work: Promise<unknown>) => background.push(work);
    await isolate.decide(store, auth, new Date(), { charge: true, later });
    for (let i = 0; i < 3; i++) {
      expect((await isolate.decide(dead, auth, new Date(), { charge: true, later })).local).toBe(true);
    }
    await Promise.all(background);
    expect(await quotaUsed(tenant)).toBe(1); // the three flushes failed: still owed
    await isolate.decide(store, auth, new Date(), { charge: true, later, sync: true });
    await Promise.all(background);
    expect(await quotaUsed(tenant)).toBe(5);
  });
});

describe('requests that ask Redis in any case', () => {
  it('do not queue behind the flush in flight for the key (/v1/usage, strict, MCP): their own call goes beside it', async () => {
    const tenant = await world.tenant({ plan: 'scale', rateLimitPerMinute: 1_000 });
    const auth = (await resolveKey(world.db, tenant.key))!;
    const hung = storeAt(env.HUNG_REDIS_UPSTASH_URL);
    const isolate = new EdgeLimits();
    const background: Promise<unknown>[] = [];
    const later = (work: Promise<unknown>) => background.push(work);
    await isolate.decide(store, auth, new Date(), { charge: true, later });
    // Decided here; its flush goes to a Redis that never answers, and holds the key busy until it times out.
    expect((await isolate.decide(hung, auth, new Date(), { charge: true, later })).local).toBe(true);
    let flushed = false;
    void Promise.all(background).then(() => (flushed = true));
    const usage = await isolate.decide(store, auth, new Date(), { charge: false, later, sync: true });
    expect(flushed, 'the usage decision did not wait for the flush').toBe(false);
    expect(usage.local).toBe(false);
    expect(usage.state.minute.mode).toBe('redis');
    await Promise.all(background);
    expect(await quotaUsed(tenant), 'the hit in the hung flush is not counted yet').toBe(1);
    // ... but stays owed, and travels with the key's next call: counted once, nothing lost.
    await isolate.decide(store, auth, new Date(), { charge: false, later, sync: true });
    expect(await quotaUsed(tenant)).toBe(2);
  });
});

describe('429 in both modes', () => {
  for (const limitsMode of ['edge', 'strict'] as const) {
    it(`${limitsMode}: the N+1st request in a minute gets 429 rate_limited with Retry-After and RateLimit headers`, async () => {
      await clearOfMinuteTurn(10_000);
      const tenant = await world.tenant({ plan: 'grow', rateLimitPerMinute: 20, limitsMode });
      const { key } = tenant;
      for (let i = 1; i <= 20; i++) {
        const reply = await world.call(PATH, { key });
        expect(reply.status, show(reply)).toBe(200);
        expect(reply.headers.get('ratelimit-policy')).toBe('"minute";q=20;w=60, "month";q=10000;w=2592000');
        expect(reply.headers.get('ratelimit')).toMatch(new RegExp(`^"minute";r=${20 - i};t=\\d+$`));
      }
      const denied = await world.call(PATH, { key });
      expect(denied.status, show(denied)).toBe(429);
      expect(denied.body.detail.code).toBe('rate_limited');
      expect(Number(denied.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(denied.headers.get('ratelimit')).toMatch(/^"minute";r=0;t=\d+$/);
      // The read ran beside its limit call (shared/limits/middleware.ts): nothing of its answer is sent.
      for (const header of ['etag', 'data-as-of', 'cache-control']) expect(denied.headers.get(header), header).toBeNull();
      expect(await quotaUsed(tenant)).toBe(20); // the refused request was given back
    });
  }
});

describe('a revocation or plan change reaches the isolate within 2 s', () => {
  /** Calls every 100 ms until `status` comes back; answers the milliseconds it took. */
  async function until(key: string, status: number): Promise<number> {
    const started = Date.now();
    for (;;) {
      const reply = await world.call(PATH, { key });
      if (reply.status === status) return Date.now() - started;
      expect(reply.status, show(reply)).toBe(200);
      if (Date.now() - started > 5_000) throw new Error(`no ${status} after 5 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  for (const limitsMode of ['edge', 'strict'] as const) {
    it(`${limitsMode}: a key revoked through the admin path answers 401 within 2 s, then stays 401`, async () => {
      const tenant = await world.tenant({ limitsMode });
      for (let i = 0; i < 3; i++) expect((await world.call(PATH, { key: tenant.key })).status).toBe(200);
      await revokeKey(world.db, tenant.keyId, new Date());
      await announceAuthChange(store);
      const took = await until(tenant.key, 401);
      expect(took).toBeLessThanOrEqual(2_000);
      if (limitsMode === 'strict') expect(took).toBeLessThan(1_000); // the very next request reads the version
      for (let i = 0; i < 3; i++) expect((await world.call(PATH, { key: tenant.key })).status).toBe(401);
    });
  }

  it('strict: a read that ran beside its limit call under a key whose markets changed runs again under the key as it is now', async () => {
    await seed(world, articleRecords());
    const tenant = await world.tenant({ plan: 'grow', limitsMode: 'strict', countries: ['US', 'GB'] });
    const before = await world.call('/v1/geo/regions/us', { key: tenant.key });
    expect(before.status, show(before)).toBe(200);
    await updateProject(world.db, tenant.projectId, { countries: ['GB'] });
    await announceAuthChange(store);
    const reply = await world.call('/v1/geo/regions/us', { key: tenant.key });
    expect(reply.status, show(reply)).toBe(403);
    expect(reply.body.detail).toMatch(/Allowed regions: GB\./);
    expect(reply.headers.get('ratelimit-policy')).toBe('"minute";q=60;w=60, "month";q=10000;w=2592000');
    expect(await quotaUsed(tenant), 'the 403 reached no data: only the first request spent quota').toBe(1);
  });

  it('a lapsed subscription answers 402 within 2 s', async () => {
    const tenant = await world.tenant();
    for (let i = 0; i < 3; i++) expect((await world.call(PATH, { key: tenant.key })).status).toBe(200);
    await updateProject(world.db, tenant.projectId, { subscriptionStatus: 'past_due' });
    await announceAuthChange(store);
    expect(await until(tenant.key, 402)).toBeLessThanOrEqual(2_000);
  });
});
