// Plan gates, per-minute rate limit, monthly quota, RateLimit headers, /v1/usage and the
// Redis outage policy, against the real Redis through the gateway.
import { env } from 'cloudflare:test';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { updateProject } from '../../shared/admin/projects';
import { forgetCachedKeys } from '../../shared/auth/keys';
import { forgetLocalLimits } from '../../shared/limits/local';
import { clearOfMinuteTurn, createWorld, show, type World } from '../helpers/world';

let world: World;
const PATH = '/v1/geo/languages';

beforeAll(async () => {
  world = await createWorld('limits');
});

const secondsToNextMonth = () => {
  const now = new Date();
  return (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000;
};

describe('per-minute rate limit', () => {
  beforeEach(() => clearOfMinuteTurn());
  it('the N+1st request in a minute gets 429 rate_limited with Retry-After and headers', async () => {
    const { key } = await world.tenant({ plan: 'grow', rateLimitPerMinute: 3 });
    for (let i = 1; i <= 3; i++) {
      const reply = await world.call(PATH, { key });
      expect(reply.status, show(reply)).toBe(200);
      expect(reply.headers.get('ratelimit-policy')).toBe('"minute";q=3;w=60, "month";q=10000;w=2592000');
      expect(reply.headers.get('ratelimit')).toMatch(new RegExp(`^"minute";r=${3 - i};t=\\d+$`));
    }
    const denied = await world.call(PATH, { key });
    expect(denied.status, show(denied)).toBe(429);
    expect(denied.body.detail).toEqual({ code: 'rate_limited', message: expect.stringContaining('3 requests per minute') });
    const retry = Number(denied.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(denied.headers.get('ratelimit')).toMatch(/^"minute";r=0;t=\d+$/);
  });

  it('counts per key: another key of the same project has its own minute', async () => {
    const first = await world.tenant({ rateLimitPerMinute: 1 });
    const { createKey } = await import('../../shared/admin/keys');
    const second = await createKey(world.db, { projectId: first.projectId, name: 'second' });
    expect((await world.call(PATH, { key: first.key })).status).toBe(200);
    expect((await world.call(PATH, { key: first.key })).status).toBe(429);
    expect((await world.call(PATH, { key: second.key })).status).toBe(200);
  });
});

describe('monthly quota', () => {
  it('exhausting the plan quota gives 429 quota_exceeded until next month; errors are refunded', async () => {
    const { key } = await world.tenant({ plan: 'start', rateLimitPerMinute: 10_000 });
    // Requests that do not reach data do not count.
    for (let i = 0; i < 5; i++) expect((await world.call('/v1/geo/regions?window=9y', { key })).status).toBe(422);
    const batch = (n: number) => Promise.all(Array.from({ length: n }, () => world.call(PATH, { key })));
    for (let i = 0; i < 10; i++) {
      const replies = await batch(10);
      expect(
        replies.every((r) => r.status === 200),
        show(replies.find((r) => r.status !== 200) ?? replies[0]),
      ).toBe(true);
    }
    const usage = await world.call('/v1/usage', { key });
    expect(usage.body.month).toMatchObject({ limit: 100, used: 100, remaining: 0, base: 100, addons: 0 });

    const over = await world.call(PATH, { key });
    expect(over.status, show(over)).toBe(429);
    expect(over.body.detail).toMatchObject({
      code: 'quota_exceeded',
      limit: 100,
      resets_at: expect.stringMatching(/-01T00:00:00\+00:00$/),
    });
    const retry = Number(over.headers.get('retry-after'));
    expect(Math.abs(retry - secondsToNextMonth())).toBeLessThan(5);
    expect(over.headers.get('ratelimit')).toMatch(/^"month";r=0;t=\d+$/);
    // The refused request was given back: still exactly at the limit.
    expect((await world.call('/v1/usage', { key })).body.month.used).toBe(100);
  });

  it('add-ons and request packs raise the quota', async () => {
    const { key } = await world.tenant({
      plan: 'grow',
      addons: { request_packs: 2, extra_entities: 3, extra_keywords: 5, extra_publishers: 1 },
    });
    const usage = await world.call('/v1/usage', { key });
    expect(usage.body.month).toMatchObject({ base: 10_000, addons: 20_000 + 30 + 10 + 10, limit: 30_050 });
  });

  it('/v1/usage needs a key', async () => {
    const reply = await world.call('/v1/usage');
    expect(reply.status, show(reply)).toBe(401);
  });

  it('/v1/usage reports usage without spending quota', async () => {
    const { key, projectId, keyId } = await world.tenant({ plan: 'grow' });
    await clearOfMinuteTurn();
    await world.call(PATH, { key });
    const first = await world.call('/v1/usage', { key });
    const second = await world.call('/v1/usage', { key });
    expect(first.status, show(first)).toBe(200);
    expect(first.body).toMatchObject({ plan: 'grow', project_id: projectId, key_id: keyId, addons: {} });
    expect(first.body.month.used).toBe(1);
    expect(second.body.month.used).toBe(1);
    expect(second.body.minute).toMatchObject({ limit: 60, used: 3, remaining: 57, mode: 'redis' });
  });
});

describe('plan gates', () => {
  it('402 subscription_inactive for a lapsed subscription', async () => {
    const { key, projectId } = await world.tenant();
    await updateProject(world.db, projectId, { subscriptionStatus: 'past_due' });
    forgetCachedKeys();
    const reply = await world.call(PATH, { key });
    expect(reply.status, show(reply)).toBe(402);
    expect(reply.body.detail).toMatchObject({ code: 'subscription_inactive' });
  });

  it('403 api_not_in_plan when API access is switched off', async () => {
    const { key, projectId } = await world.tenant();
    await updateProject(world.db, projectId, { apiEnabled: false });
    forgetCachedKeys();
    const reply = await world.call(PATH, { key });
    expect(reply.status, show(reply)).toBe(403);
    expect(reply.body.detail).toMatchObject({ code: 'api_not_in_plan' });
  });

  it('a trialing subscription passes', async () => {
    const { key } = await world.tenant({ subscriptionStatus: 'trialing' });
    expect((await world.call(PATH, { key })).status).toBe(200);
  });
});

describe('Redis outage policy', () => {
  it('Redis stopped: answers promptly, limited per isolate, headers say so', async () => {
    forgetLocalLimits();
    const { key } = await world.tenant({ rateLimitPerMinute: 2 });
    const down = { UPSTASH_REDIS_REST_URL: env.DEAD_REDIS_UPSTASH_URL };
    const started = Date.now();
    const first = await world.call(PATH, { key, env: down });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(first.status, show(first)).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"minute-local";q=2;w=60');
    expect((await world.call(PATH, { key, env: down })).status).toBe(200);
    const third = await world.call(PATH, { key, env: down });
    expect(third.status, show(third)).toBe(429);
    expect(third.body.detail.code).toBe('rate_limited');
  });

  it('Redis hung: the bounded timeout answers within a second', async () => {
    const { key } = await world.tenant();
    const started = Date.now();
    const reply = await world.call('/v1/usage', { key, env: { UPSTASH_REDIS_REST_URL: env.HUNG_REDIS_UPSTASH_URL } });
    const elapsed = Date.now() - started;
    expect(reply.status, show(reply)).toBe(200);
    expect(elapsed).toBeLessThan(1_000);
    expect(reply.body.minute.mode).toBe('local');
    expect(reply.body.month).toBeNull();
  });
});

describe('cost', () => {
  it('a warm request makes exactly one Redis round trip for limits and quota', async () => {
    const { key } = await world.tenant();
    const quiet = { UPSTASH_REDIS_REST_URL: env.QUIET_UPSTASH_URL };
    const stats = async () => (await (await fetch(new URL('/stats', env.QUIET_UPSTASH_URL))).json()) as { redis: number };
    await world.call(PATH, { key, env: quiet }); // warm: the limiter's script is loaded
    const before = await stats();
    const reply = await world.call(PATH, { key, env: quiet });
    expect(reply.status, show(reply)).toBe(200);
    expect((await stats()).redis - before.redis).toBe(1);
  });
});
