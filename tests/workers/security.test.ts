// Issue 19: each finding of the security review, written as the attack that exploited it and the
// refusal it now gets.
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_LIST_ITEMS } from '../../shared/list-caps';
import { MAX_OFFSET } from '../../shared/schemas/common';
import { createWorld, show, type World } from '../helpers/world';

let world: World;
let key: string;

beforeAll(async () => {
  world = await createWorld('security');
  ({ key } = await world.tenant());
}, 60_000);

const many = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i)).join(';');

describe('finding 1: unbounded query shapes', () => {
  it.each([
    ['/v2/feed?entity=', 'entity', (i: number) => `x${i}`],
    ['/v2/feed?match=all&entity=', 'entity', (i: number) => `x${i}`],
    ['/v2/feed?category=', 'category', (i: number) => `/C${i}`],
    ['/v1/articles?entity=', 'entity', (i: number) => `x${i}`],
  ] as const)('%s with 300 values -> 422 naming the cap', async (prefix, name, make) => {
    const reply = await world.call(`${prefix}${encodeURIComponent(many(300, make))}`, { key });
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail[0].loc).toEqual(['query', name]);
    expect(reply.body.detail[0].msg).toContain(`At most ${MAX_LIST_ITEMS}`);
  });

  it(`${MAX_LIST_ITEMS} values are still served`, async () => {
    const reply = await world.call(`/v2/feed?entity=${encodeURIComponent(many(MAX_LIST_ITEMS, (i) => `x${i}`))}`, { key });
    expect(reply.status, show(reply)).toBe(200);
  });

  it.each(['/v1/articles', '/v2/feed', '/v1/entities', '/v1/trends', '/v1/tracking/lists'])('%s?offset=9007199254740991 -> 422 pointing past the cap', async (path) => {
    const reply = await world.call(`${path}?offset=9007199254740991`, { key });
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail[0].loc).toEqual(['query', 'offset']);
    expect(reply.body.detail[0].msg).toMatch(/at most 10000.*cursor/);
    expect((await world.call(`${path}?offset=${MAX_OFFSET}`, { key })).status).toBe(200);
  });

  it('the OpenAPI document states the caps', async () => {
    const doc = (await world.call('/openapi.json')).body;
    const params = doc.paths['/v2/feed'].get.parameters as any[];
    expect(params.find((p) => p.name === 'offset').schema.maximum, JSON.stringify(params.find((p) => p.name === 'offset'))).toBe(MAX_OFFSET);
    expect(params.find((p) => p.name === 'entity').description).toContain(`At most ${MAX_LIST_ITEMS} values`);
  });
});
