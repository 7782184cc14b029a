// POST /mcp: the MCP protocol through the official SDK, tools that run the REST routes with the
// caller's key (same bodies, same errors), the mcp plan gate, and quota shared with REST.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../functions/index';
import { buildTool, TOOL_SPECS } from '../../functions/mcp/tools';
import { createList } from '../../shared/admin/lists';
import { updateProject } from '../../shared/admin/projects';
import { forgetCachedKeys } from '../../shared/auth/keys';
import { articleRecords, NOW, SOCCER } from '../fixtures/articles';
import { seed } from '../helpers/seed';
import { clearOfMinuteTurn, createWorld, show, type Reply, type Tenant, type World } from '../helpers/world';

let world: World;
let full: Tenant;
let restricted: Tenant;
let listId: string;

beforeAll(async () => {
  world = await createWorld('mcp');
  world.setNow(NOW);
  await seed(world, articleRecords());
  full = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
  restricted = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] }, { countries: ['US'] });
  listId = (
    await createList(
      world.db,
      { projectId: full.projectId, kind: 'category', name: 'Sections', items: [{ key: '/Sports/Soccer' }] },
      new Date(NOW),
    )
  ).id;
}, 60_000);

const ACCEPT = 'application/json, text/event-stream';
let nextId = 1;

/** One JSON-RPC message (or a batch) to POST /mcp. */
function post(body: unknown, key?: string, headers: Record<string, string> = {}) {
  return world.call('/mcp', { method: 'POST', key, body, headers: { Accept: ACCEPT, ...headers } });
}

const request = (method: string, params?: object) => ({ jsonrpc: '2.0', id: nextId++, method, ...(params && { params }) });
const rpc = (key: string, method: string, params?: object) => post(request(method, params), key);
const callTool = (key: string, name: string, args: object = {}) => rpc(key, 'tools/call', { name, arguments: args });

/** The tool result's text parsed as JSON (the REST body). */
function toolBody(reply: Reply) {
  expect(reply.status, show(reply)).toBe(200);
  expect(reply.body.result?.content, show(reply)).toHaveLength(1);
  return JSON.parse(reply.body.result.content[0].text);
}

const usage = async (key: string) => (await world.call('/v1/usage', { key })).body;

describe('protocol', () => {
  it('initialize answers server info and the tools capability; notifications are accepted; ping', async () => {
    const init = await rpc(full.key, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'test', version: '1' },
    });
    expect(init.status, show(init)).toBe(200);
    expect(init.headers.get('content-type')).toMatch(/application\/json/);
    expect(init.headers.get('mcp-session-id'), 'stateless: no session').toBeNull();
    expect(init.body.result).toMatchObject({
      protocolVersion: '2025-06-18',
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'discovery-analytics-api', title: 'Discovery analytics API', version: '1.0.0' },
      instructions: expect.stringContaining('monthly quota'),
    });
    const initialized = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, full.key);
    expect(initialized.status, show(initialized)).toBe(202);
    const ping = await rpc(full.key, 'ping');
    expect(ping.body).toEqual({ jsonrpc: '2.0', id: expect.any(Number), result: {} });
  });

  it("tools/list names read-only tools whose input schemas are the routes' documented parameters", async () => {
    const reply = await rpc(full.key, 'tools/list');
    expect(reply.status, show(reply)).toBe(200);
    const tools: any[] = reply.body.result.tools;
    expect(tools.map((t) => t.name)).toEqual([
      'list_tracking_lists',
      'get_tracking_list',
      'get_tracking_list_metrics',
      'get_tracking_list_rollup',
      'get_mention_matches',
      'list_regions',
      'get_region',
      'list_languages',
      'search_articles',
      'get_article',
      'get_category_analytics',
      'get_usage',
      'list_trends',
      'get_trend',
      'list_trend_articles',
      'list_trend_parents',
      'list_trend_children',
      'get_trend_rollup',
      'list_themes',
      'list_theme_topics',
      'list_topic_trends',
      'list_entities',
      'get_trending_entities',
      'get_entity',
      'list_entity_articles',
      'check_publisher_profile',
      'find_publisher_profiles',
      'list_feed',
      'list_live_feed',
      'get_url_profiles',
    ]);
    for (const tool of tools) {
      expect(tool.annotations, tool.name).toEqual({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.description, tool.name).toMatch(/Runs GET \/(v1|v2|public)\//);
    }
    const search = tools.find((t) => t.name === 'search_articles');
    expect(search.title).toBe('List articles');
    expect(search.inputSchema.additionalProperties).toBe(false);
    expect(search.inputSchema.required).toEqual([]);
    expect(search.inputSchema.properties.sort_by).toMatchObject({
      type: 'string',
      enum: ['first_seen', 'last_seen', 'published_at', 'impressions'],
      default: 'first_seen',
    });
    expect(search.inputSchema.properties.limit).toMatchObject({ type: 'integer', description: 'Page size, 1-200.', examples: [50] });
    expect(search.inputSchema.properties.limit).not.toHaveProperty('example');
    // The same parameters, word for word, as /openapi.json documents for GET /v1/articles.
    const doc = (await world.call('/openapi.json')).body;
    // Every documented parameter but the exports' `format`: tools answer JSON.
    const documented = doc.paths['/v1/articles'].get.parameters.filter((p: any) => p.name !== 'format');
    expect(doc.paths['/v1/articles'].get.parameters.some((p: any) => p.name === 'format')).toBe(true);
    expect(Object.keys(search.inputSchema.properties)).toEqual(documented.map((p: any) => p.name));
    for (const p of documented) {
      const { example, ...schema } = p.schema;
      expect(search.inputSchema.properties[p.name], p.name).toMatchObject({ ...schema, description: p.description });
    }
    const metrics = tools.find((t) => t.name === 'get_tracking_list_metrics');
    expect(metrics.inputSchema.required).toEqual(['list_id']);
    expect(metrics.inputSchema.properties.list_id).toMatchObject({ type: 'string', format: 'uuid' });
    expect(metrics.inputSchema.properties.grain).toMatchObject({ enum: ['hour', 'day'], default: 'day' });
  });

  it("each tool, described from its own route's area app, is the tool the whole /openapi.json describes", async () => {
    const listed: any[] = (await rpc(full.key, 'tools/list')).body.result.tools;
    const doc = (await world.call('/openapi.json')).body;
    expect(listed.map((t) => t.name)).toEqual(TOOL_SPECS.map((s) => s.name));
    for (const spec of TOOL_SPECS) {
      const { name, title, description, inputSchema, annotations } = buildTool(spec, doc);
      expect(
        listed.find((t) => t.name === spec.name),
        spec.name,
      ).toEqual({ name, title, description, inputSchema, annotations });
    }
  });

  it('an unknown tool is a JSON-RPC invalid-params error, not a 500', async () => {
    const reply = await callTool(full.key, 'drop_tables');
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: drop_tables') });
  });

  it("malformed JSON and an Accept that refuses JSON get the transport's JSON-RPC errors", async () => {
    const malformed = await post('{"jsonrpc": "2.0", ', full.key);
    expect(malformed.status, show(malformed)).toBe(400);
    expect(malformed.body.error.code).toBe(-32700);
    const noJson = await post(request('tools/list'), full.key, { Accept: 'text/event-stream' });
    expect(noJson.status, show(noJson)).toBe(406);
  });

  it('Accept: application/json alone is enough: the server never streams', async () => {
    const reply = await post(request('tools/list'), full.key, { Accept: 'application/json' });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/application\/json/);
    expect(reply.body.result.tools.length).toBeGreaterThan(5);
  });

  it('GET and DELETE /mcp are 405: no SSE stream, no session', async () => {
    for (const method of ['GET', 'DELETE']) {
      const reply = await world.call('/mcp', { method, key: full.key, headers: { Accept: ACCEPT } });
      expect(reply.status, show(reply)).toBe(405);
      expect(reply.headers.get('allow')).toBe('POST');
    }
  });

  it("the SDK's own client connects, lists tools and calls one", async () => {
    const fetchWorker = async (url: string | URL, init?: RequestInit) => {
      const ctx = createExecutionContext();
      const response = await worker.fetch(new Request(url, init) as any, { ...world.env } as any, ctx);
      await waitOnExecutionContext(ctx);
      return response as unknown as Response;
    };
    const transport = new StreamableHTTPClientTransport(new URL('http://api.test/mcp'), {
      fetch: fetchWorker,
      requestInit: { headers: { Authorization: `Bearer ${full.key}` } },
    });
    const client = new Client({ name: 'vitest', version: '1.0.0' }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    await client.connect(transport);
    expect(client.getServerVersion()?.name).toBe('discovery-analytics-api');
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'get_article')?.inputSchema.required).toEqual(['id']);
    const result = await client.callTool({ name: 'get_article', arguments: { id: SOCCER } });
    expect(result.isError).toBe(false);
    expect(JSON.parse((result.content as any)[0].text)).toMatchObject({ id: SOCCER, title: 'Soccer final thriller' });
    await client.close();
  });
});

describe("tools/call runs the REST route with the caller's key", () => {
  it.each([
    ['search_articles', { country: 'us', limit: 3, sort_by: 'impressions' }, '/v1/articles?country=us&limit=3&sort_by=impressions'],
    ['get_article', { id: SOCCER }, `/v1/articles/${SOCCER}`],
    ['list_tracking_lists', { kind: 'category' }, '/v1/tracking/lists?kind=category'],
    ['get_category_analytics', { period: '30d', top_level: true }, '/v1/analytics/categories?period=30d&top_level=true'],
    ['list_entities', { limit: 3, min_score: 0.1 }, '/v1/entities?limit=3&min_score=0.1'],
    ['get_trending_entities', { region: 'us', period: '7d' }, '/v1/entities/trending?region=us&period=7d'],
  ])('%s gives the REST body for the same key and parameters', async (name, args, path) => {
    const rest = await world.call(path, { key: full.key });
    expect(rest.status, show(rest)).toBe(200);
    const reply = await callTool(full.key, name, args);
    expect(reply.body.result.isError, show(reply)).toBe(false);
    expect(toolBody(reply)).toEqual(rest.body);
  });

  it('path arguments reach the route (tracking list by id)', async () => {
    const body = toolBody(await callTool(full.key, 'get_tracking_list', { list_id: listId }));
    expect(body).toMatchObject({ id: listId, kind: 'category', name: 'Sections', items: [{ key: '/Sports/Soccer' }] });
  });

  it("invalid arguments: a tool error with the route's own 422 detail, no 500", async () => {
    const rest = await world.call('/v1/articles?limit=0&sort_by=clicks', { key: full.key });
    expect(rest.status).toBe(422);
    const reply = await callTool(full.key, 'search_articles', { limit: 0, sort_by: 'clicks' });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.result.isError).toBe(true);
    expect(toolBody(reply)).toEqual(rest.body);
    expect(toolBody(reply).detail.map((i: any) => i.loc)).toEqual([
      ['query', 'sort_by'],
      ['query', 'limit'],
    ]);
  });

  it('unknown, missing and unsafe arguments are tool errors in the same 422 shape', async () => {
    const unknown = toolBody(await callTool(full.key, 'search_articles', { limit: 5, colour: 'red' }));
    expect(unknown).toEqual({
      detail: [{ loc: ['arguments', 'colour'], msg: 'Unknown argument for search_articles', type: 'extra_forbidden' }],
    });
    const missing = await callTool(full.key, 'get_article', {});
    expect(missing.body.result.isError).toBe(true);
    expect(toolBody(missing)).toEqual({ detail: [{ loc: ['path', 'id'], msg: 'Field required', type: 'missing' }] });
    const climbing = toolBody(await callTool(full.key, 'get_tracking_list', { list_id: '..' }));
    expect(climbing.detail[0]).toMatchObject({ loc: ['path', 'list_id'], type: 'value_error' });
    const malformed = await callTool(full.key, 'get_article', { id: 'not-a-uuid' });
    expect(malformed.body.result.isError).toBe(true);
    expect(toolBody(malformed).detail[0]).toMatchObject({ loc: ['path', 'id'] });
  });

  it('an out-of-scope country: the REST 403 message comes back as a tool error', async () => {
    for (const [name, args, path] of [
      ['search_articles', { country: 'DE' }, '/v1/articles?country=DE'],
      ['get_region', { alpha_2: 'FR' }, '/v1/geo/regions/FR'],
    ] as const) {
      const rest = await world.call(path, { key: restricted.key });
      expect(rest.status, show(rest)).toBe(403);
      const reply = await callTool(restricted.key, name, args);
      expect(reply.body.result.isError, show(reply)).toBe(true);
      expect(toolBody(reply)).toEqual(rest.body);
    }
    expect(toolBody(await callTool(restricted.key, 'get_region', { alpha_2: 'FR' })).detail).toBe(
      "Region 'FR' is not allowed for this API key. Allowed regions: US.",
    );
  });

  it('plan scope applies: a category-limited plan gets endpoint_not_in_plan_scope', async () => {
    const limited = await world.tenant({ plan: 'grow', categories: ['/Sports'] });
    const body = toolBody(await callTool(limited.key, 'get_category_analytics'));
    expect(body.detail).toMatchObject({ code: 'endpoint_not_in_plan_scope' });
  });
});

describe('authentication and plan gates', () => {
  it('401 without a key or with a query-string key, before any message is read', async () => {
    const none = await post(request('tools/list'));
    expect(none.status, show(none)).toBe(401);
    expect(none.body.detail).toMatch(/Missing API key/);
    const query = await world.call(`/mcp?api_key=${full.key}`, {
      method: 'POST',
      body: request('tools/list'),
      headers: { Accept: ACCEPT },
    });
    expect(query.status, show(query)).toBe(401);
  });

  it('Authorization: Bearer works as X-API-Key does', async () => {
    const reply = await world.call('/mcp', { method: 'POST', bearer: full.key, body: request('tools/list'), headers: { Accept: ACCEPT } });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.result.tools.length).toBeGreaterThan(5);
  });

  it('403 mcp_not_in_plan when MCP is switched off, before any tool runs; REST still works', async () => {
    const tenant = await world.tenant({ mcpEnabled: false });
    for (const body of [
      request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
      request('tools/call', { name: 'get_usage', arguments: {} }),
    ]) {
      const reply = await post(body, tenant.key);
      expect(reply.status, show(reply)).toBe(403);
      expect(reply.body).toEqual({ detail: { code: 'mcp_not_in_plan', message: 'MCP access is switched off for this project.' } });
    }
    expect((await world.call('/v1/articles', { key: tenant.key })).status).toBe(200);
    expect((await usage(tenant.key)).month.used, 'refused MCP requests spend nothing').toBe(1);
  });

  it('API off, MCP on: tools work while REST gives api_not_in_plan', async () => {
    const tenant = await world.tenant({ apiEnabled: false, mcpEnabled: true });
    const rest = await world.call('/v1/articles?limit=2', { key: tenant.key });
    expect(rest.status, show(rest)).toBe(403);
    expect(rest.body.detail).toMatchObject({ code: 'api_not_in_plan' });
    const reply = await callTool(tenant.key, 'search_articles', { limit: 2 });
    expect(reply.body.result.isError, show(reply)).toBe(false);
    expect(toolBody(reply)).toMatchObject({ total: 6, limit: 2 });
    const account = toolBody(await callTool(tenant.key, 'get_usage'));
    expect(account.month.used).toBe(1);
  });

  it('a switch flipped later takes effect on both channels once the key cache forgets it', async () => {
    const tenant = await world.tenant();
    await updateProject(world.db, tenant.projectId, { mcpEnabled: false, apiEnabled: true });
    forgetCachedKeys();
    expect((await rpc(tenant.key, 'tools/list')).status).toBe(403);
    expect((await world.call('/v1/usage', { key: tenant.key })).status).toBe(200);
  });

  it('402 subscription_inactive on POST /mcp for a lapsed subscription', async () => {
    const tenant = await world.tenant({ subscriptionStatus: 'canceled' });
    const reply = await rpc(tenant.key, 'tools/list');
    expect(reply.status, show(reply)).toBe(402);
    expect(reply.body.detail).toMatchObject({ code: 'subscription_inactive' });
  });
});

describe('quota shared with REST', () => {
  it('a tool call spends exactly one request and one per-minute hit; protocol messages spend no quota', async () => {
    const tenant = await world.tenant({ plan: 'grow' });
    await clearOfMinuteTurn();
    await rpc(tenant.key, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    await rpc(tenant.key, 'tools/list');
    await rpc(tenant.key, 'ping');
    let state = await usage(tenant.key);
    expect(state.month.used).toBe(0);
    expect(state.minute.used, 'three POSTs and this GET').toBe(4);

    const reply = await callTool(tenant.key, 'search_articles', { limit: 1 });
    expect(reply.body.result.isError, show(reply)).toBe(false);
    state = await usage(tenant.key);
    expect(state.month.used).toBe(1);
    expect(state.minute.used, 'the POST and its tool call count once').toBe(6);

    await world.call('/v1/articles?limit=1', { key: tenant.key });
    expect((await usage(tenant.key)).month.used, 'REST spends from the same quota').toBe(2);
  });

  it('a failed tool call is given back, as a failed REST request is', async () => {
    const tenant = await world.tenant({ plan: 'grow' });
    expect((await callTool(tenant.key, 'search_articles', { country: 'FR' })).body.result.isError).toBe(true);
    expect((await callTool(tenant.key, 'get_tracking_list', { list_id: listId })).body.result.isError).toBe(true);
    expect((await usage(tenant.key)).month.used).toBe(0);
  });

  it('a batch of tool calls spends one request and one per-minute hit each', async () => {
    const tenant = await world.tenant({ plan: 'grow' });
    await clearOfMinuteTurn();
    const reply = await post(
      [
        request('tools/call', { name: 'list_languages', arguments: {} }),
        request('tools/call', { name: 'search_articles', arguments: { limit: 1 } }),
      ],
      tenant.key,
    );
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body).toHaveLength(2);
    expect(
      reply.body.every((r: any) => r.result.isError === false),
      show(reply),
    ).toBe(true);
    const state = await usage(tenant.key);
    expect(state.month.used).toBe(2);
    expect(state.minute.used, 'two tool calls and this GET').toBe(3);
  });

  it('POST /mcp carries RateLimit headers that count its tool call', async () => {
    const tenant = await world.tenant({ plan: 'start', rateLimitPerMinute: 1_000 });
    const list = await rpc(tenant.key, 'tools/list');
    expect(list.headers.get('ratelimit-policy')).toBe('"minute";q=1000;w=60, "month";q=100;w=2592000');
    expect(list.headers.get('ratelimit'), 'listing spent no quota').toMatch(/^"minute";r=999;t=\d+$/);
    const call = await callTool(tenant.key, 'list_languages');
    expect(call.body.result.isError, show(call)).toBe(false);
    expect(call.headers.get('ratelimit')).toMatch(/^"month";r=99;t=\d+$/);
  });

  it('the per-minute limit applies to POST /mcp (429 rate_limited); an exhausted quota fails the tool call', async () => {
    const tenant = await world.tenant({ plan: 'grow', rateLimitPerMinute: 2 });
    expect((await rpc(tenant.key, 'tools/list')).status).toBe(200);
    expect((await rpc(tenant.key, 'tools/list')).status).toBe(200);
    const denied = await rpc(tenant.key, 'tools/list');
    expect(denied.status, show(denied)).toBe(429);
    expect(denied.body.detail).toMatchObject({ code: 'rate_limited' });

    const spent = await world.tenant({ plan: 'start', rateLimitPerMinute: 1_000 });
    const { createStore } = await import('../../shared/db/redis');
    const { readConfig } = await import('../../shared/env');
    const store = createStore(readConfig({ ...world.env }));
    await store.redis.set(store.key('quota', spent.projectId, new Date().toISOString().slice(0, 7)), 100);
    expect((await rpc(spent.key, 'tools/list')).status, 'listing tools is free').toBe(200);
    const over = toolBody(await callTool(spent.key, 'search_articles', { limit: 1 }));
    expect(over.detail).toMatchObject({ code: 'quota_exceeded', limit: 100 });
    expect((await usage(spent.key)).month.used, 'the refused call was given back').toBe(100);
  });
});
