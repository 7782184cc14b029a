// Single flight for cached aggregates (README "Single flight for aggregates"): concurrent identical cold requests compute once
// (inline and queued), followers get the leader's result or 503 `computing` + Retry-After, a
// crashed leader blocks nobody past the lock TTL, and a failed leader hands over to a follower.
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { aggregateKey } from '../../shared/aggregates/engine';
import type { AggregateKind } from '../../shared/aggregates/kind';
import { serveAggregate } from '../../shared/aggregates/serve';
import { createList } from '../../shared/admin/lists';
import { createApp, services } from '../../shared/http/app';
import { readConfig } from '../../shared/env';
import { pack, toCached } from '../../shared/cache/response';
import { createStore } from '../../shared/db/redis';
import { dataset, DOMAINS } from '../fixtures/oracle';
import { seed } from '../helpers/seed';
import type { AuthContext } from '../../shared/auth/types';
import { callWithOutcome, LOGGED, withOutcomes } from '../helpers/outcomes';
import { createWorld, show, type World } from '../helpers/world';

/** The probe routes answer as to an internal key (no project): those are told X-Aggregate-Cache. */
const INTERNAL: AuthContext = {
  keyId: 'probe',
  keyKind: 'internal',
  projectId: null,
  plan: null,
  allowedCountries: null,
  categories: null,
  apiEnabled: true,
  mcpEnabled: true,
  subscriptionStatus: 'active',
  historyDays: 730,
  rateLimitPerMinute: 1200,
  addons: {},
  limitsMode: 'edge',
};

const NOW = '2026-11-10T10:30:00.000Z';
let world: World;

beforeAll(async () => {
  world = await createWorld('single_flight');
  world.setNow(NOW);
  for (const batch of dataset()) await seed(world, batch);
}, 120_000);

const answered = (reply: { status: number; headers: Headers }) =>
  reply.status === 200 || (reply.status === 503 && Number(reply.headers.get('retry-after')) > 0);

describe('inline single flight on a tracking route', () => {
  it('100 concurrent identical cold metrics requests compute once; every caller gets 200 or 503 + Retry-After', async () => {
    const { key, projectId } = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
    const list = await createList(
      world.db,
      { projectId, kind: 'publisher', name: 'herd', items: DOMAINS.map((k) => ({ key: k })) },
      new Date(NOW),
    );
    const path = `/v1/tracking/lists/${list.id}/metrics?period=custom&date_from=2026-11-04T00:00:00Z&date_to=2026-11-10T00:00:00Z&grain=hour&limit=200`;
    const { value: replies, outcomes } = await withOutcomes(() =>
      Promise.all(Array.from({ length: 100 }, () => world.call(path, { key, env: LOGGED }))),
    );
    for (const reply of replies) expect(answered(reply), show(reply)).toBe(true);
    expect(
      outcomes.filter((o) => o === 'miss'),
      `exactly one computation (outcomes: ${outcomes.join(' ')})`,
    ).toHaveLength(1);
    const ok = replies.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThan(90);
    for (const reply of ok) expect(reply.body).toEqual(ok[0].body);
    const again = await callWithOutcome(world, path, { key });
    expect(again.outcome).toBe('hit');
    expect(again.headers.get('x-aggregate-cache'), 'a project key is not told').toBeNull();
  });
});

/** Runs `work` and counts the calls sent to Redis (the Upstash REST endpoint) meanwhile. */
async function redisCalls<T>(work: () => Promise<T>): Promise<{ value: T; calls: number }> {
  const redisUrl = String(world.env.UPSTASH_REDIS_REST_URL);
  const original = globalThis.fetch;
  let calls = 0;
  const spy = vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    if (String(input instanceof Request ? input.url : input).startsWith(redisUrl)) calls++;
    return original(input, init);
  });
  try {
    return { value: await work(), calls };
  } finally {
    spy.mockRestore();
  }
}

/** A kind that counts its computations and can be told to fail or to hang. */
function probe(behaviour: { fail?: boolean; delayMs?: number } = {}) {
  const calls = { n: 0 };
  const kind: AggregateKind<{ q: string }> = {
    name: `test.probe-${crypto.randomUUID().slice(0, 8)}`,
    warm: false,
    async compute(_services, request) {
      calls.n++;
      await new Promise((r) => setTimeout(r, behaviour.delayMs ?? 50));
      if (behaviour.fail) throw new Error('leader crashed');
      return { q: request.q, computed: calls.n };
    },
  };
  const app = createApp();
  app.use('*', services());
  app.use('*', async (c, next) => {
    c.set('auth', INTERNAL);
    await next();
  });
  app.get('/probe', async (c) => c.json((await serveAggregate(c, kind, { q: c.req.query('q') ?? '' })) as object));
  const call = async (env: Record<string, string> = {}) => {
    const response = await app.request('/probe?q=x', {}, { ...world.env, ...env });
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };
  return { kind, calls, call, behaviour };
}

describe('shared/aggregate single flight', () => {
  it('counts one computation for 50 concurrent misses', async () => {
    const p = probe({ delayMs: 200 });
    const replies = await Promise.all(Array.from({ length: 50 }, p.call));
    expect(p.calls.n).toBe(1);
    for (const reply of replies) expect(reply.status).toBe(200);
    expect(replies.map((r) => r.body.computed)).toEqual(Array(50).fill(1));
  });

  it('followers in the same isolate join the first request: no lookup and no poll of Redis each', async () => {
    const p = probe({ delayMs: 300 });
    const { value: replies, calls } = await redisCalls(() => Promise.all(Array.from({ length: 50 }, p.call)));
    expect(p.calls.n).toBe(1);
    expect(replies.map((r) => r.headers.get('x-aggregate-cache')).sort()).toEqual(['miss', ...Array(49).fill('shared')]);
    // The leader's own: the lookup and its lock (2), the lock's inline lifetime, storing the answer and
    // releasing the lock (get, del). 49 followers each looking up and polling (50, 100, 200 ms) make 200 or more.
    expect(calls).toBeLessThanOrEqual(6);
  });

  it('across isolates: a leader elsewhere (its lock in Redis) is awaited by one poller here, its answer shared', async () => {
    const p = probe();
    const store = createStore(readConfig({ ...world.env }));
    const cacheKey = await aggregateKey(store, p.kind, { q: 'x' });
    await store.redis.set(`${cacheKey}:lock`, 'other-isolate', { ex: 20 });
    const elsewhere = (async () => {
      await new Promise((r) => setTimeout(r, 400));
      await store.redis.set(cacheKey, pack(await toCached({ q: 'x', computed: 'elsewhere' }, null)), { ex: 60 });
      await store.redis.del(`${cacheKey}:lock`);
    })();
    const { value: replies, calls } = await redisCalls(() => Promise.all(Array.from({ length: 20 }, () => p.call())));
    await elsewhere;
    expect(p.calls.n, 'nobody here computed').toBe(0);
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(reply.body.computed).toBe('elsewhere');
      expect(reply.headers.get('x-aggregate-cache')).toBe('shared');
    }
    // The lookup, the polls of one follower (50, 100, 200, then every 250 ms: a slow machine adds a few)
    // and the other isolate's own writes; 20 followers polling each make 100 or more.
    expect(calls).toBeLessThanOrEqual(25);
  });

  it('a crashed leader (lock held, no result) blocks a follower only until the lock TTL', async () => {
    const p = probe();
    const store = createStore(readConfig({ ...world.env }));
    const cacheKey = await aggregateKey(store, p.kind, { q: 'x' });
    // The leader died holding the lock: only the TTL frees it (1 s here instead of the real 20 s).
    await store.redis.set(`${cacheKey}:lock`, 'dead-leader', { ex: 1 });
    const started = Date.now();
    const follower = await p.call();
    // Within the follower's wait budget the lock expired and the follower took over.
    expect(follower.status, JSON.stringify(follower.body)).toBe(200);
    expect(follower.headers.get('x-aggregate-cache')).toBe('miss');
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect((await p.call()).headers.get('x-aggregate-cache')).toBe('hit');
    expect(p.calls.n).toBe(1);
  });

  it('a lock that outlives the wait budget answers 503 computing, then computes once it expires', async () => {
    const p = probe();
    const store = createStore(readConfig({ ...world.env }));
    const cacheKey = await aggregateKey(store, p.kind, { q: 'x' });
    await store.redis.set(`${cacheKey}:lock`, 'dead-leader', { ex: 5 });
    const blocked = await p.call();
    expect(blocked.status).toBe(503);
    expect(blocked.body.detail.code).toBe('computing');
    expect(blocked.headers.get('retry-after')).toBe('2');
    expect(p.calls.n).toBe(0);
    await new Promise((r) => setTimeout(r, 2_600));
    const after = await p.call();
    expect(after.status).toBe(200);
    expect(p.calls.n).toBe(1);
  }, 15_000);

  it('Redis unreachable (refused or hung): computed inline without the cache, X-Aggregate-Cache bypass', async () => {
    const p = probe();
    for (const url of [env.DEAD_REDIS_UPSTASH_URL, env.HUNG_REDIS_UPSTASH_URL]) {
      const reply = await p.call({ UPSTASH_REDIS_REST_URL: url });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.headers.get('x-aggregate-cache')).toBe('bypass');
    }
    expect(p.calls.n).toBe(2);
    // Back to the real Redis: cached and single-flight again.
    expect((await p.call()).headers.get('x-aggregate-cache')).toBe('miss');
    expect((await p.call()).headers.get('x-aggregate-cache')).toBe('hit');
  });

  it('a failing leader releases its lock: the error reaches its caller and the next caller computes', async () => {
    const p = probe({ fail: true });
    const first = await p.call();
    expect(first.status).toBe(500);
    expect(JSON.stringify(first.body)).not.toContain('leader crashed');
    p.behaviour.fail = false;
    const second = await p.call();
    expect(second.status).toBe(200);
    expect(p.calls.n).toBe(2);
  });
});
