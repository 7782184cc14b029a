// Restart survival (README "When PostgreSQL or Redis restarts"): `npm start` on a throwaway PostgreSQL 15 cluster (initdb in a temp
// dir, its own port) and a throwaway redis-server. Restarting PostgreSQL (`pg_ctl -m immediate
// stop`, then start) and then Redis under the running stack: during the outage keyed requests
// answer 503 + Retry-After, npm start stays up, and within 5 s of the dependency being back
// requests succeed again, with nothing restarted.
import { AUTH_VERSION_FRESH_MS } from '../../shared/auth/version';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startThrowaway, type ThrowawayStack } from '../../scripts/lib/throwaway';

let stack: ThrowawayStack;
let key = '';
let metricsPath = '';

async function get(path: string) {
  try {
    const res = await fetch(`${stack.base}${path}`, { headers: { 'X-API-Key': key }, signal: AbortSignal.timeout(5_000) });
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      cacheStatus: res.headers.get('cache-status'),
      text: await res.text(),
    };
  } catch (err) {
    return { status: 0, retryAfter: null, cacheStatus: null, text: (err as Error).message };
  }
}

/** Polls until `path` answers 200; returns the milliseconds it took. */
async function recovers(path: string, budgetMs: number): Promise<number> {
  const t0 = Date.now();
  let last = await get(path);
  while (last.status !== 200 && Date.now() - t0 < budgetMs) {
    await new Promise((r) => setTimeout(r, 100));
    last = await get(path);
  }
  expect(last.status, `${path} after the restart: ${last.text.slice(0, 300)}\n${stack.output().slice(-2_000)}`).toBe(200);
  return Date.now() - t0;
}

beforeAll(async () => {
  stack = await startThrowaway('discovery-restart');
  key = stack.key('full');
  const lists = JSON.parse((await get('/v1/tracking/lists')).text) as { lists: { id: string; kind: string }[] };
  metricsPath = `/v1/tracking/lists/${lists.lists.find((l) => l.kind === 'publisher')!.id}/metrics?period=24h`;
}, 240_000);

afterAll(async () => {
  await stack?.close();
});

describe('npm start when PostgreSQL or Redis restarts', () => {
  it('PostgreSQL restart: stale copies or 503 + Retry-After while down, 200 within 5 s after, npm start still up', async () => {
    // A copy is served only to a key the isolate still holds within its lifetime (shared/stale): the
    // isolate's first auth version read shortens the keys it held to AUTH_VERSION_FRESH_MS, so the key
    // is read again (and held 30 s) before the answer that the outage will serve stale.
    await get('/v1/articles?limit=5');
    await new Promise((r) => setTimeout(r, AUTH_VERSION_FRESH_MS + 500));
    const before = await get('/v1/articles?limit=5');
    expect(before.status).toBe(200);
    stack.stopPostgres();
    // The answer kept at the edge (ISOLATE_CACHE_SECONDS, 10 s) answers first; then the stale tier does.
    await new Promise((r) => setTimeout(r, 11_000));
    // Answered a moment ago by this key: its last good copy, marked stale (shared/stale).
    const stale = await get('/v1/articles?limit=5');
    expect(stale.status, stale.text).toBe(200);
    expect(stale.text).toBe(before.text);
    expect(stale.cacheStatus).toMatch(/fwd=stale/);
    // Never another key's copy: the restricted key of the same project never asked this.
    const foreign = await fetch(`${stack.base}/v1/articles?limit=5`, { headers: { 'X-API-Key': stack.key('restricted') } });
    expect(foreign.status, await foreign.text()).toBe(503);
    // Never answered: 503.
    const down = await get('/v1/articles?limit=5&offset=1');
    expect(down.status, down.text).toBe(503);
    expect(Number(down.retryAfter)).toBeGreaterThan(0);
    expect(down.text).toContain('detail');
    // Long enough for every idle connection of npm start to notice the dead server.
    await new Promise((r) => setTimeout(r, 2_000));
    stack.startPostgres();
    const ms = await recovers('/v1/articles?limit=5&offset=2', 5_000);
    console.log(`PostgreSQL: requests succeed ${ms} ms after it is back`);
    expect(stack.running(), stack.output().slice(-2_000)).toBe(true);
    expect(stack.output()).not.toMatch(/fatal|Unhandled 'error' event/);
  }, 60_000);

  it('Redis restart: 200 (computed without the cache) or 503 + Retry-After while down, cached again within 5 s after, npm start still up', async () => {
    expect((await get(metricsPath)).status).toBe(200);
    await stack.stopRedis();
    const down = await get(`${metricsPath}&lang=en`);
    if (down.status !== 200) {
      expect(down.status, down.text).toBe(503);
      expect(Number(down.retryAfter)).toBeGreaterThan(0);
    }
    await new Promise((r) => setTimeout(r, 1_000));
    await stack.startRedis();
    const ms = await recovers(`${metricsPath}&lang=de`, 5_000);
    // Redis itself is in use again: the answer is now cached (a kept answer says how long ago with Age;
    // X-Aggregate-Cache goes to internal keys only).
    const again = await fetch(`${stack.base}${metricsPath}&lang=de`, { headers: { 'X-API-Key': key } });
    expect(again.headers.get('age')).not.toBeNull();
    console.log(`Redis: requests succeed ${ms} ms after it is back`);
    expect(stack.running(), stack.output().slice(-2_000)).toBe(true);
  }, 60_000);
});
