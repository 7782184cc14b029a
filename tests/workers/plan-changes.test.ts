// Issue 46, findings 3 and 5, as the attacks: a plan change made while the isolate holds the key
// (the grant taken under the old plan must not outlive it), a project switched off and back on (both
// within 2 s, the refusals read the auth version as any answer does), and POST /mcp once MCP is off.
import { beforeAll, describe, expect, it } from 'vitest';
import { announceAuthChange } from '../../shared/admin/announce';
import { updateProject } from '../../shared/admin/projects';
import { AUTH_VERSION_FRESH_MS } from '../../shared/auth/version';
import { createStore, type Store } from '../../shared/db/redis';
import { env } from 'cloudflare:test';
import { clearOfMinuteTurn, createWorld, show, type World } from '../helpers/world';

let world: World;
let store: Store;
const PATH = '/v1/geo/languages';

beforeAll(async () => {
  world = await createWorld('plan_changes');
  store = createStore({
    UPSTASH_REDIS_REST_URL: env.UPSTASH_REDIS_REST_URL,
    UPSTASH_REDIS_REST_TOKEN: env.UPSTASH_REDIS_REST_TOKEN,
    REDIS_PREFIX: world.env.REDIS_PREFIX ?? '',
  });
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls every 100 ms until `status` comes back; answers the milliseconds it took. */
async function until(key: string, status: number, path = PATH): Promise<number> {
  const started = Date.now();
  for (;;) {
    const reply = await world.call(path, { key });
    if (reply.status === status) return Date.now() - started;
    if (Date.now() - started > 10_000) throw new Error(`no ${status} after 10 s: ${show(reply)}`);
    await pause(100);
  }
}

describe('finding 3: a grant does not outlive a plan change', () => {
  it('200/min, then 5/min: after the change no request is admitted beyond 5 in the minute, and none says q=200', async () => {
    await clearOfMinuteTurn(25_000);
    const tenant = await world.tenant({ plan: 'scale', rateLimitPerMinute: 200 });
    for (let i = 0; i < 3; i++) expect((await world.call(PATH, { key: tenant.key })).status).toBe(200);
    await updateProject(world.db, tenant.projectId, { rateLimitPerMinute: 5 });
    await announceAuthChange(store);
    await pause(2_500);
    // This one reads the new version: decided as the key was when it came in (the 4th hit of the minute).
    expect((await world.call(PATH, { key: tenant.key })).status).toBe(200);
    const burst = await Promise.all(Array.from({ length: 20 }, () => world.call(PATH, { key: tenant.key })));
    const admitted = burst.filter((r) => r.status === 200);
    expect(admitted.length, 'at most the 5th hit of the minute').toBeLessThanOrEqual(1);
    expect(burst.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(19);
    for (const reply of burst) expect(reply.headers.get('ratelimit-policy'), show(reply)).toMatch(/^"minute";q=5;w=60/);
  });
});

describe('finding 3, through MCP: a batch after a plan change is decided under the new limit', () => {
  it('200/min, then 10/min: of 20 tool calls in one batch, at most the 7 the minute has left get through', async () => {
    await clearOfMinuteTurn(25_000);
    const tenant = await world.tenant({ plan: 'scale', rateLimitPerMinute: 200 });
    for (let i = 0; i < 3; i++) expect((await world.call(PATH, { key: tenant.key })).status).toBe(200);
    await updateProject(world.db, tenant.projectId, { rateLimitPerMinute: 10 });
    await announceAuthChange(store);
    await pause(AUTH_VERSION_FRESH_MS + 100);
    const batch = Array.from({ length: 20 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'list_languages', arguments: {} },
    }));
    const reply = await world.call('/mcp', {
      method: 'POST',
      key: tenant.key,
      body: batch,
      headers: { Accept: 'application/json, text/event-stream' },
    });
    expect(reply.status, show(reply)).toBe(200);
    const through = (reply.body as { result?: { isError: boolean } }[]).filter((m) => m.result && !m.result.isError).length;
    // 3 REST hits, then the POST's (which pays for its first call): 7 of the 10 left for the calls.
    expect(through, show(reply)).toBeLessThanOrEqual(7);
    expect(through).toBeGreaterThanOrEqual(1);
  });
});

describe('finding 5: switching a project off and on again reaches the isolate within 2 s', () => {
  it('API off: 403 within 2 s; API on again: 200 within 2 s, though every request in between was refused', async () => {
    const tenant = await world.tenant();
    for (let i = 0; i < 3; i++) expect((await world.call(PATH, { key: tenant.key })).status).toBe(200);
    await updateProject(world.db, tenant.projectId, { apiEnabled: false });
    await announceAuthChange(store);
    expect(await until(tenant.key, 403)).toBeLessThanOrEqual(2_000);
    // Refused for a while (the cached key would otherwise live out its 30 s).
    for (let i = 0; i < 5; i++) {
      expect((await world.call(PATH, { key: tenant.key })).body.detail.code).toBe('api_not_in_plan');
      await pause(300);
    }
    await updateProject(world.db, tenant.projectId, { apiEnabled: true });
    await announceAuthChange(store);
    expect(await until(tenant.key, 200)).toBeLessThanOrEqual(2_000);
  });

  it('a lapsed subscription renewed answers 200 within 2 s', async () => {
    const tenant = await world.tenant({ subscriptionStatus: 'past_due' });
    expect((await world.call(PATH, { key: tenant.key })).status).toBe(402);
    await pause(AUTH_VERSION_FRESH_MS);
    expect((await world.call(PATH, { key: tenant.key })).status).toBe(402);
    await updateProject(world.db, tenant.projectId, { subscriptionStatus: 'active' });
    await announceAuthChange(store);
    expect(await until(tenant.key, 200)).toBeLessThanOrEqual(2_000);
  });

  it('MCP off: the first POST /mcp that learns of it is refused with 403 mcp_not_in_plan, not a 200 of refused tool calls', async () => {
    const tenant = await world.tenant();
    const post = (method: string) =>
      world.call('/mcp', {
        method: 'POST',
        key: tenant.key,
        body: { jsonrpc: '2.0', id: 1, method, ...(method === 'tools/call' && { params: { name: 'get_usage', arguments: {} } }) },
        headers: { Accept: 'application/json, text/event-stream' },
      });
    expect((await post('tools/list')).status).toBe(200);
    await updateProject(world.db, tenant.projectId, { mcpEnabled: false });
    await announceAuthChange(store);
    // The isolate's version read is over 1 s old: this POST's limit call reads the new version.
    await pause(AUTH_VERSION_FRESH_MS + 100);
    const reply = await post('tools/call');
    expect(reply.status, show(reply)).toBe(403);
    expect(reply.body.detail.code).toBe('mcp_not_in_plan');
    expect((await world.call('/v1/usage', { key: tenant.key })).body.month.used, 'the refused POST spent nothing').toBe(0);
  });
});
