// Every list-valued parameter is bounded (docs/SECURITY.md "Caps on query shapes"). Each test is the attack
// (one value past the cap) and its 422 in the spec's shape, the cap itself still served, and the cap in the document.
import { beforeAll, describe, expect, it } from 'vitest';
import { createList } from '../../shared/admin/lists';
import { MAX_LIST_ITEMS } from '../../shared/scope/list-caps';
import { MCP_MAX_BATCH } from '../../functions/mcp/routes/mcp';
import { DEMO_MAX_DOMAINS } from '../../functions/public/routes/widget';
import { createWorld, show, type World } from '../helpers/world';

const NOW = '2026-11-20T12:00:00.000Z';

let world: World;
let key: string;
let mentionList: string;
let doc: any;

beforeAll(async () => {
  world = await createWorld('list_caps');
  world.setNow(NOW);
  const tenant = await world.tenant();
  key = tenant.key;
  mentionList = (
    await createList(
      world.db,
      {
        projectId: tenant.projectId,
        kind: 'mention',
        name: 'Energy',
        countries: ['US'],
        langs: ['en'],
        searchScope: 'both',
        createdAt: new Date(NOW),
        terms: [{ keyword: 'heat pump', matchType: 'broad' }],
      },
      new Date(NOW),
    )
  ).id;
  doc = (await world.call('/openapi.json')).body;
}, 60_000);

const param = (path: string, name: string) => (doc.paths[path].get.parameters as any[]).find((p) => p.name === name);

/** The 422 naming `name` and the cap. */
function refused(reply: { status: number; body: any; text: string; headers: Headers }, loc: (string | number)[], cap: number) {
  expect(reply.status, show(reply)).toBe(422);
  expect(reply.body.detail).toHaveLength(1);
  expect(reply.body.detail[0]).toMatchObject({ loc, type: 'too_long' });
  expect(reply.body.detail[0].msg).toContain(`At most ${cap}`);
}

describe('/v1/tracking/lists/{id}/matches', () => {
  const matches = (query: string) => world.call(`/v1/tracking/lists/${mentionList}/matches?${query}`, { key });
  const mentions = (n: number) => Array.from({ length: n }, (_, i) => `mention=k${i}`).join('&');

  it(`mention repeated ${MAX_LIST_ITEMS + 1} times -> 422; ${MAX_LIST_ITEMS} are served`, async () => {
    refused(await matches(mentions(MAX_LIST_ITEMS + 1)), ['query', 'mention'], MAX_LIST_ITEMS);
    const ok = await matches(mentions(MAX_LIST_ITEMS));
    expect(ok.status, show(ok)).toBe(200);
  });

  it('match_types with more than the three types -> 422; the three are served', async () => {
    refused(await matches('match_types=broad,phrase,exact,broad'), ['query', 'match_types'], 3);
    refused(await matches(`match_types=${Array(300).fill('broad').join(',').slice(0, 64)}`), ['query', 'match_types'], 3);
    const long = await matches(`match_types=${Array(300).fill('broad').join(',')}`);
    expect(long.status, show(long)).toBe(422);
    expect(long.body.detail[0].loc).toEqual(['query', 'match_types']);
    const ok = await matches('match_types=broad,phrase,exact');
    expect(ok.status, show(ok)).toBe(200);
  });

  it('the document states both caps', () => {
    const mention = param('/v1/tracking/lists/{list_id}/matches', 'mention');
    expect(mention.description).toContain(`At most ${MAX_LIST_ITEMS} values`);
    expect(JSON.stringify(mention.schema)).toContain(`"maxItems":${MAX_LIST_ITEMS}`);
    expect(param('/v1/tracking/lists/{list_id}/matches', 'match_types').description).toContain('At most 3 values');
  });
});

describe('/public/widget-demo', () => {
  const demo = (n: number) =>
    world.call(`/public/widget-demo?domains=${Array.from({ length: n }, (_, i) => `d${i}.example.com`).join(',')}`, {
      headers: { 'CF-Connecting-IP': '198.51.100.7' },
    });

  it(`${DEMO_MAX_DOMAINS + 1} domains -> 422 (no longer cut silently); ${DEMO_MAX_DOMAINS} are served`, async () => {
    refused(await demo(DEMO_MAX_DOMAINS + 1), ['query', 'domains'], DEMO_MAX_DOMAINS);
    const ok = await demo(DEMO_MAX_DOMAINS);
    expect(ok.status, show(ok)).toBe(200);
    expect(param('/public/widget-demo', 'domains').description).toContain(`At most ${DEMO_MAX_DOMAINS} values`);
  });
});

describe('POST /mcp batches', () => {
  const batch = (n: number) =>
    world.call('/mcp', {
      method: 'POST',
      key,
      headers: { Accept: 'application/json' },
      body: Array.from({ length: n }, (_, i) => ({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'tools/call',
        params: { name: 'search_articles', arguments: { entity: `x${i}` } },
      })),
    });

  it(`a batch of ${MCP_MAX_BATCH + 1} tool calls -> 422 before any runs; ${MCP_MAX_BATCH} are answered`, async () => {
    refused(await batch(MCP_MAX_BATCH + 1), ['body'], MCP_MAX_BATCH);
    const ok = await batch(MCP_MAX_BATCH);
    expect(ok.status, show(ok)).toBe(200);
    expect(ok.body).toHaveLength(MCP_MAX_BATCH);
    expect(JSON.stringify(doc.paths['/mcp'].post.requestBody)).toContain(`"maxItems":${MCP_MAX_BATCH}`);
  });

  it("the review's batch (ten tool calls with 300 entities each) runs no query: each call is its route's 422", async () => {
    const entities = Array.from({ length: 300 }, (_, i) => `x${i}`).join(';');
    const reply = await world.call('/mcp', {
      method: 'POST',
      key,
      headers: { Accept: 'application/json' },
      body: Array.from({ length: 10 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'tools/call',
        params: { name: 'search_articles', arguments: { entity: entities } },
      })),
    });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body).toHaveLength(10);
    for (const answer of reply.body) {
      expect(answer.result.isError, JSON.stringify(answer)).toBe(true);
      expect(answer.result.content[0].text).toContain(`At most ${MAX_LIST_ITEMS} values`);
    }
  });
});
