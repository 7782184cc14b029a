// Every plan gate code (and mcp_not_in_plan on POST /mcp) from a plan setting made with the admin CLI (`npm run admin -- ...`, as an
// operator runs it), seen through real HTTP requests to the all-in-one Worker as wrangler bundles it,
// in workerd, against this file's own database on the machine's PostgreSQL and the real Redis. Data
// (articles, a video publisher, tracking lists) is loaded with `npm run ingest`.
//
// A Worker isolate caches a key's record for 30 s (README "Key cache"), so each setting is read
// through a key first used after the CLI made it: `setting(...)` changes the project and creates
// that key in parallel (a key created before the change but not used yet reads the new setting too).
import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RealRedis } from '../../scripts/gateway/redis-real';
import { migrate } from '../../scripts/lib/migrations';
import { startWorker, type RunningWorker } from '../../scripts/lib/worker';
import { articleRecords, hour, NOW, SOCCER, STARTUP } from '../fixtures/articles';

const SERVER = inject('adminDatabaseUrl').replace(/\/[^/]*$/, '');
const DB = `test_plan_gates_${inject('runId')}`; // global teardown drops leftovers by the run id suffix
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const env = { ...process.env, DATABASE_URL: `${SERVER}/${DB}`, REDIS_URL, REDIS_PREFIX: DB };

/** `npm run <script> -- <args> --json`, as an operator types it; resolves with the parsed output. */
function npm(script: 'admin' | 'ingest', args: string[], stdin = ''): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', script, '--', ...args, '--json'], { env });
    let out = '';
    let err = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (err += b));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`npm run ${script} -- ${args.join(' ')}: exit ${code}\n${err}${out}`)),
    );
    child.stdin.end(stdin);
  });
}
const admin = (...args: string[]) => npm('admin', args);
const newKey = async (projectId: string): Promise<string> => (await admin('key:create', '--project', projectId)).key;
/** `npm run admin -- project:set <id> <options>`, and a fresh key of the project to read it with. */
async function setting(projectId: string, ...options: string[]): Promise<string> {
  const [, key] = await Promise.all([admin('project:set', projectId, ...options), newKey(projectId)]);
  return key;
}

async function onServer(database: string, work: (c: pg.Client) => Promise<unknown>) {
  const client = new pg.Client({ connectionString: `${SERVER}/${database}` });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

let worker: RunningWorker;
async function call(path: string, key: string) {
  const res = await fetch(new URL(path, worker.url), { headers: { 'X-API-Key': key } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text), text };
}
async function passes(path: string, key: string) {
  const reply = await call(path, key);
  expect(reply.status, `${path}: ${reply.text}`).toBe(200);
  return reply.body;
}
async function refused(path: string, key: string, status: number, detail: Record<string, unknown>) {
  const reply = await call(path, key);
  expect(reply.status, `${path}: ${reply.text}`).toBe(status);
  expect(reply.body).toEqual({ detail });
}

const VIDEO = 'clips.example.tv';
const CATEGORY_LIST = 'c0000000-0000-4000-8000-000000000001';
const VIDEO_LIST = 'c0000000-0000-4000-8000-000000000002';

/** The articles fixture, a video publisher, and two tracking lists of `projectId`, as NDJSON. */
function ndjson(projectId: string): string {
  const list = (id: string, kind: string, keys: string[]) => [
    { type: 'tracking_list', id, project_id: projectId, kind, name: kind, created_at: hour(48), updated_at: hour(48) },
    ...keys.map((key) => ({ type: 'tracking_list_item', list_id: id, key, name: key, added_at: hour(48) })),
  ];
  return [
    ...articleRecords(),
    { type: 'publisher', domain: VIDEO, name: 'ClipTube', is_video: true },
    ...list(CATEGORY_LIST, 'category', ['/Sports/Soccer', '/Tech']),
    ...list(VIDEO_LIST, 'publisher', [VIDEO, 'goal.example.com']),
  ]
    .map((r) => JSON.stringify(r))
    .join('\n');
}

const ids: Record<'gates' | 'grow' | 'small', string> = { gates: '', grow: '', small: '' };
let growKey = '';

beforeAll(async () => {
  await onServer('postgres', async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${DB}`);
  });
  await onServer(DB, (c) => migrate(c));
  const started = startWorker({
    DATABASE_URL: env.DATABASE_URL,
    NEON_HTTP_ENDPOINT: inject('neonHttpUrl'),
    NEON_WS_PROXY: inject('neonWsProxy'),
    UPSTASH_REDIS_REST_URL: inject('upstashUrl'),
    UPSTASH_REDIS_REST_TOKEN: inject('upstashToken'),
    REDIS_PREFIX: DB,
    APP_URL: 'https://app.example.com',
    NOW,
  });
  const [gates, grow, small] = await Promise.all([
    admin('project:create', '--name', 'Gates', '--plan', 'scale', '--countries', 'US'),
    admin('project:create', '--name', 'Grow newsroom', '--plan', 'grow', '--countries', 'US,GB,DE', '--categories', '/Sports'),
    admin('project:create', '--name', 'Small', '--plan', 'start', '--countries', 'US'),
  ]);
  Object.assign(ids, { gates: gates.id, grow: grow.id, small: small.id });
  const [loaded, key] = await Promise.all([npm('ingest', [], ndjson(grow.id)), newKey(grow.id)]);
  expect(loaded.skipped, JSON.stringify(loaded.errors)).toBe(0);
  growKey = key;
  worker = await started;
}, 120_000);

afterAll(async () => {
  await worker?.dispose();
  await onServer('postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`));
  const redis = new RealRedis(REDIS_URL);
  const keys = (await redis.exec(['KEYS', `${DB}*`])) as Buffer[];
  if (keys.length) await redis.exec(['DEL', ...keys.map(String)]);
  await redis.close();
});

describe('subscription and API access (project:set --subscription, --api)', () => {
  it('402 subscription_inactive, then 403 api_not_in_plan, then 200 as each setting is undone', async () => {
    const path = '/v1/tracking/lists';
    await refused(path, await setting(ids.gates, '--subscription', 'past_due', '--api', 'off'), 402, {
      code: 'subscription_inactive',
      message: 'The project subscription is past due; renew it to use the API.',
    });
    await refused(path, await setting(ids.gates, '--subscription', 'active'), 403, {
      code: 'api_not_in_plan',
      message: 'API access is switched off for this project.',
    });
    expect(await passes(path, await setting(ids.gates, '--api', 'on'))).toMatchObject({ lists: [] });
  });
});

describe('MCP access (project:set --mcp)', () => {
  /** One tools/call over POST /mcp (Streamable HTTP, JSON response). */
  async function toolCall(key: string) {
    const res = await fetch(new URL('/mcp', worker.url), {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_tracking_lists', arguments: {} } }),
    });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text), text };
  }

  it('403 mcp_not_in_plan with MCP off (REST still served); with MCP on and API off, tools work', async () => {
    const off = await setting(ids.gates, '--mcp', 'off');
    const refusal = await toolCall(off);
    expect(refusal.status, refusal.text).toBe(403);
    expect(refusal.body).toEqual({ detail: { code: 'mcp_not_in_plan', message: 'MCP access is switched off for this project.' } });
    await passes('/v1/tracking/lists', off);
    const mcpOnly = await setting(ids.gates, '--mcp', 'on', '--api', 'off');
    const reply = await toolCall(mcpOnly);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.result.isError, reply.text).toBe(false);
    expect(JSON.parse(reply.body.result.content[0].text)).toMatchObject({ lists: [] });
    await refused('/v1/tracking/lists', mcpOnly, 403, { code: 'api_not_in_plan', message: 'API access is switched off for this project.' });
    await setting(ids.gates, '--api', 'on');
  });
});

describe('chosen categories and video (project:create --plan grow --categories /Sports)', () => {
  const ANALYTICS = '/v1/analytics/categories';
  const FILTER = '/v1/articles?category=/Sports';
  const closed = (endpoint: string) => ({
    code: 'endpoint_not_in_plan_scope',
    message: `${endpoint} cannot be limited to your chosen categories, so it is closed to category-limited plans.`,
  });
  const video = { code: 'video_not_in_plan', message: 'ClipTube video data is not part of your plan.', platform: 'ClipTube' };

  it('403 category_not_in_plan for a category list naming /Tech', () =>
    refused(`/v1/tracking/lists/${CATEGORY_LIST}/metrics`, growKey, 403, {
      code: 'category_not_in_plan',
      message: 'Categories outside your plan: /Tech. Your plan covers: /Sports.',
    }));

  it('403 endpoint_not_in_plan_scope for category analytics and the category filter; the plain list is limited', async () => {
    await refused(ANALYTICS, growKey, 403, closed(ANALYTICS));
    await refused(FILTER, growKey, 403, closed('The `category` filter of /v1/articles'));
    expect((await passes('/v1/articles', growKey)).articles.map((a: { id: string }) => a.id)).toContain(SOCCER);
  });

  it('404 out_of_plan_scope for an article tagged /Tech; a /Sports article is served', async () => {
    await refused(`/v1/articles/${STARTUP}`, growKey, 404, {
      code: 'out_of_plan_scope',
      message: 'The article lies outside the categories of your plan.',
    });
    await passes(`/v1/articles/${SOCCER}`, growKey);
  });

  it('403 video_not_in_plan for a list with a video publisher on Grow', () =>
    refused(`/v1/tracking/lists/${VIDEO_LIST}/rollup`, growKey, 403, video));

  it('project:set --categories /Sports,/Tech opens the /Tech list and article; analytics and video stay closed', async () => {
    const key = await setting(ids.grow, '--categories', '/Sports,/Tech');
    await passes(`/v1/tracking/lists/${CATEGORY_LIST}/metrics`, key);
    expect(await passes(`/v1/articles/${STARTUP}`, key)).toMatchObject({ id: STARTUP });
    await refused(ANALYTICS, key, 403, closed(ANALYTICS));
    await refused(`/v1/tracking/lists/${VIDEO_LIST}/rollup`, key, 403, video);
  });

  it('project:set --plan scale: every category and video', async () => {
    const key = await setting(ids.grow, '--plan', 'scale');
    expect((await passes(ANALYTICS, key)).categories.length).toBeGreaterThan(0);
    expect((await passes(FILTER, key)).articles.length).toBeGreaterThan(0);
    await passes(`/v1/tracking/lists/${VIDEO_LIST}/rollup`, key);
    await passes(`/v1/tracking/lists/${CATEGORY_LIST}/metrics`, key);
  });
});

describe('monthly quota (Start plan, 100 requests)', () => {
  it('429 quota_exceeded after 100 successful requests; usage agrees; an add-on raises the quota', async () => {
    // The Start per-minute limit (10) would refuse first: the CLI raises it for this project.
    const key = await setting(ids.small, '--rate-limit', '500');
    for (let batch = 0; batch < 10; batch++) {
      const replies = await Promise.all(Array.from({ length: 10 }, () => call('/v1/tracking/lists', key)));
      expect(
        replies.map((r) => r.status),
        replies.find((r) => r.status !== 200)?.text,
      ).toEqual(Array(10).fill(200));
    }
    const reply = await call('/v1/tracking/lists', key);
    expect(reply.status, reply.text).toBe(429);
    expect(reply.body.detail).toEqual({
      code: 'quota_exceeded',
      message: 'The monthly quota of 100 requests is used up; it renews at the start of next month (UTC).',
      limit: 100,
      resets_at: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00\+00:00$/),
    });
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
    // The refusal was given back (after the response, waitUntil): the CLI reads the Worker's counter.
    await expect.poll(async () => (await admin('usage', ids.small)).month, { timeout: 10_000 }).toMatchObject({ used: 100, limit: 100 });
    const raised = await setting(ids.small, '--addons', 'extra_entities=1');
    await passes('/v1/tracking/lists', raised);
  });
});
