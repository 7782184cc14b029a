// Request ids on every kind of answer, their echo rules, and the one JSON log line per request,
// queue job and cron run (shared/observability, README "Operating").
import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import worker from '../../functions/index';
import { createList } from '../../shared/admin/lists';
import { geoRecords, NOW } from '../fixtures/geo';
import { seed } from '../helpers/seed';
import { createWorld, show, type Tenant, type World } from '../helpers/world';

let world: World;
let tenant: Tenant;
let listId: string;

beforeAll(async () => {
  world = await createWorld('observability');
  world.setNow(NOW);
  await seed(world, geoRecords());
  tenant = await world.tenant({ countries: ['US', 'GB', 'DE', 'FR'] });
  // Made here: a test that points the driver at a dead endpoint leaves it there for world.db.
  listId = (
    await createList(world.db, {
      projectId: tenant.projectId,
      kind: 'mention',
      name: 'Jobs',
      countries: [],
      langs: [],
      searchScope: 'title',
      createdAt: new Date(NOW),
      terms: [{ keyword: 'swift', matchType: 'broad' }],
    })
  ).id;
});

afterEach(() => vi.restoreAllMocks());

/** The suite runs at LOG_LEVEL=warn (vitest.config.ts); these tests read the info lines. */
const INFO = { LOG_LEVEL: 'info' };
const call = (path: string, options: Parameters<World['call']>[1] = {}) =>
  world.call(path, { ...options, env: { ...INFO, ...options.env } });

const GENERATED = /^[0-9a-f-]{36}$/;

/** Every JSON line written to console.log/warn/error while `work` runs. */
async function captureLogs(work: () => Promise<unknown>): Promise<Record<string, any>[]> {
  const lines: string[] = [];
  for (const method of ['log', 'warn', 'error'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
  }
  await work();
  vi.restoreAllMocks();
  return lines.flatMap((line) => {
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });
}

describe('X-Request-Id on every kind of answer', () => {
  it('200, 304, 401, 404, 422 and public answers all carry one', async () => {
    const ok = await call('/v1/geo/regions', { key: tenant.key });
    expect(ok.status, show(ok)).toBe(200);
    const notModified = await call('/v1/geo/regions', { key: tenant.key, headers: { 'If-None-Match': ok.headers.get('ETag')! } });
    expect(notModified.status).toBe(304);
    const missingKey = await call('/v1/geo/regions');
    expect(missingKey.status).toBe(401);
    const unknownRoute = await call('/v1/nothing-here', { key: tenant.key });
    expect(unknownRoute.status).toBe(404);
    const outsideAreas = await call('/nowhere');
    expect(outsideAreas.status).toBe(404);
    const invalid = await call('/v1/geo/regions?active_only=maybe', { key: tenant.key });
    expect(invalid.status, show(invalid)).toBe(422);
    const publicCheck = await call('/public/platform-profile?domain=example.com', { headers: { 'CF-Connecting-IP': '198.51.100.7' } });
    expect(publicCheck.status, show(publicCheck)).toBe(200);
    const ids = [ok, notModified, missingKey, unknownRoute, outsideAreas, invalid, publicCheck].map((r) => r.headers.get('X-Request-Id'));
    for (const id of ids) expect(id).toMatch(GENERATED);
    expect(new Set(ids).size).toBe(ids.length);
    // Error bodies keep the spec's shapes: no id inside them.
    expect(missingKey.body).toEqual({ detail: expect.any(String) });
    expect(Array.isArray(invalid.body.detail)).toBe(true);
  });

  it('MCP: the POST and each tool result carry the id, and the tool call runs under it', async () => {
    const id = 'mcp-trace-0001';
    const logs = await captureLogs(async () => {
      const reply = await call('/mcp', {
        method: 'POST',
        key: tenant.key,
        headers: { Accept: 'application/json, text/event-stream', 'X-Request-Id': id },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_languages', arguments: {} } },
      });
      expect(reply.status, show(reply)).toBe(200);
      expect(reply.headers.get('X-Request-Id')).toBe(id);
      expect(reply.body.result.isError, show(reply)).toBe(false);
      expect(reply.body.result._meta).toEqual({ request_id: id });
    });
    const lines = logs.filter((l) => l.msg === 'request' && l.request_id === id);
    expect(lines.map((l) => [l.channel, l.route])).toEqual([
      ['mcp', '/v1/geo/languages'],
      ['rest', '/mcp'],
    ]);
  });
});

describe('X-Request-Id echo rules', () => {
  const idOf = async (headers: Record<string, string>) =>
    (await call('/v1/geo/regions', { key: tenant.key, headers })).headers.get('X-Request-Id');

  it('echoes a safe token of 8-128 letters, digits and -_.:', async () => {
    for (const own of ['abcd1234', 'req_2026-11-23T21:00:00.123', 'x'.repeat(128)]) expect(await idOf({ 'X-Request-Id': own })).toBe(own);
  });

  it('replaces anything else with a new id', async () => {
    for (const bad of ['short', 'x'.repeat(129), 'has space inside', 'semi;colon-1234', '<script>alert(1)</script>', 'tab\there-123456']) {
      const id = await idOf({ 'X-Request-Id': bad });
      expect(id, bad).not.toBe(bad);
      expect(id).toMatch(GENERATED);
    }
  });

  it('derives the new id from cf-ray when there is one', async () => {
    const id = await idOf({ 'cf-ray': '8f1e2d3c4b5a6978-FRA' });
    expect(id).toMatch(/^8f1e2d3c4b5a6978-FRA:[0-9a-f]{12}$/);
    // The caller's safe id still wins over the ray.
    expect(await idOf({ 'cf-ray': '8f1e2d3c4b5a6978-FRA', 'X-Request-Id': 'caller-chosen-id' })).toBe('caller-chosen-id');
  });
});

describe('one JSON log line per request', () => {
  it('names the request, Worker, route, status, duration, cache, round trips, project and key, never the key itself', async () => {
    const logs = await captureLogs(() => call('/v1/geo/regions/US', { key: tenant.key, headers: { 'X-Request-Id': 'log-line-test-1' } }));
    const lines = logs.filter((l) => l.request_id === 'log-line-test-1');
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({
      level: 'info',
      msg: 'request',
      worker: 'discovery-api',
      channel: 'rest',
      method: 'GET',
      route: '/v1/geo/regions/:alpha_2',
      status: 200,
      cache: expect.any(String),
      project_id: tenant.projectId,
      key_id: tenant.keyId,
    });
    expect(line.duration_ms).toBeGreaterThanOrEqual(0);
    // Auth, limits and the query each went to Neon or Upstash at least once, in sequence.
    expect(line.round_trips).toBeGreaterThanOrEqual(1);
    expect(line.calls).toBeGreaterThanOrEqual(line.round_trips);
    expect(JSON.stringify(line)).not.toContain(tenant.key);
    expect(Date.parse(line.time)).not.toBeNaN();
  });

  it('logs a 503 at warn level, answers without a key with null ids, and respects LOG_LEVEL', async () => {
    const logs = await captureLogs(() => call('/v1/geo/regions', { headers: { 'X-Request-Id': 'log-line-test-2' } }));
    expect(logs.find((l) => l.request_id === 'log-line-test-2')).toMatchObject({
      level: 'info',
      status: 401,
      project_id: null,
      key_id: null,
    });
    const quiet = await captureLogs(() =>
      call('/v1/geo/regions', { key: tenant.key, env: { LOG_LEVEL: 'warn' }, headers: { 'X-Request-Id': 'log-line-test-3' } }),
    );
    expect(quiet.filter((l) => l.request_id === 'log-line-test-3')).toEqual([]);
    // A 503 (here: the plan cannot be read, the database is down) is a documented, retryable answer: warn.
    const fresh = await world.tenant({ countries: ['US'] });
    const down = await captureLogs(() =>
      call('/v1/geo/regions', {
        key: fresh.key,
        env: { NEON_HTTP_ENDPOINT: 'http://127.0.0.1:1/sql' },
        headers: { 'X-Request-Id': 'log-line-test-4' },
      }),
    );
    expect(down.find((l) => l.request_id === 'log-line-test-4')).toMatchObject({ level: 'warn', status: 503 });
  });

  it('each queue job writes one line: what it was, how it ended, how long it took', async () => {
    const batch = createMessageBatch('discovery-jobs', [
      { id: 'job-done', timestamp: new Date(), attempts: 1, body: { type: 'scan', listId } },
      { id: 'job-failed', timestamp: new Date(), attempts: 3, body: { type: 'scan', listId: crypto.randomUUID() } },
      { id: 'job-dropped', timestamp: new Date(), attempts: 2, body: { type: 'no-such-job' } },
    ]);
    const ctx = createExecutionContext();
    const logs = await captureLogs(() => worker.queue(batch as any, { ...world.env, ...INFO } as any, ctx));
    const lineOf = (id: string) => {
      const lines = logs.filter((l) => l.message_id === id);
      expect(lines, id).toHaveLength(1);
      expect(lines[0].duration_ms).toBeGreaterThanOrEqual(0);
      return lines[0];
    };
    expect(lineOf('job-done')).toMatchObject({
      level: 'info',
      msg: 'job',
      worker: expect.any(String),
      type: 'scan',
      list_id: listId,
      outcome: 'done',
      attempt: 1,
    });
    expect(lineOf('job-failed')).toMatchObject({
      level: 'error',
      msg: 'job',
      type: 'scan',
      outcome: 'retry',
      attempt: 3,
      error: expect.stringContaining('no mention list'),
    });
    expect(lineOf('job-dropped')).toMatchObject({ level: 'warn', msg: 'job dropped', type: 'no-such-job', outcome: 'dropped', attempt: 2 });
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(['job-done', 'job-dropped']);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(['job-failed']);
  });

  it('a cron run writes one line', async () => {
    const logs = await captureLogs(() =>
      worker.scheduled(
        createScheduledController({ cron: '*/10 * * * *' }) as any,
        { ...world.env, ...INFO } as any,
        createExecutionContext(),
      ),
    );
    const runs = logs.filter((l) => l.msg === 'cron');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ level: 'info', cron: '*/10 * * * *', failures: [], queued: 0 });
  });
});
