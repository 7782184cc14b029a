// Input hygiene at the edge (README "Hostile input"): NUL bytes, invalid percent-encoding / UTF-8, over-long
// values and too many parameters answer the spec's 422 on every route of the served OpenAPI
// document, before auth and before any query; repeated parameters a route does not declare as
// repeatable answer 422 too.
import { beforeAll, describe, expect, it } from 'vitest';
import { bodyIssue, MAX_PARAM_LENGTH, MAX_PARAMS, urlIssues } from '../../shared/http/hygiene';
import { createWorld, show, type World } from '../helpers/world';

let world: World;
let key: string;
let operations: { method: string; path: string; query: string[] }[];

beforeAll(async () => {
  world = await createWorld('hygiene');
  ({ key } = await world.tenant());
  const doc = (await world.call('/openapi.json')).body;
  operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      // Any syntactically plausible id: hygiene runs before the route looks anything up.
      path: path.replace(/\{[^}]+\}/g, (p) => (p.includes('alpha') ? 'US' : '7a1f3c9e-2b4d-4e8f-9a0b-1c2d3e4f5a6b')),
      query: (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name as string),
    })),
  );
}, 60_000);

const hostile: [string, (param: string) => string][] = [
  ['a NUL byte', (p) => `${p}=a%00b`],
  ['another control character', (p) => `${p}=%1B%5B2J`],
  ['invalid percent-encoding', (p) => `${p}=%ZZ`],
  ['bytes that are not UTF-8', (p) => `${p}=%FF%FE`],
  ['a lone surrogate', (p) => `${p}=%ED%A0%80`],
  ['an over-long value', (p) => `${p}=${'x'.repeat(MAX_PARAM_LENGTH + 1)}`],
  ['too many parameters', (p) => Array.from({ length: MAX_PARAMS + 1 }, (_, i) => `${p}${i}=1`).join('&')],
];

describe('hostile query strings on every operation', () => {
  it.each(hostile)('%s -> 422 with loc/msg/type, keyed or not', async (_, make) => {
    expect(operations.length).toBeGreaterThan(10);
    for (const op of operations) {
      const param = op.query[0] ?? 'x';
      for (const withKey of [true, false]) {
        const reply = await world.call(`${op.path}?${make(param)}`, {
          method: op.method,
          key: withKey ? key : undefined,
          body: op.method === 'POST' ? {} : undefined,
        });
        expect(reply.status, `${op.method} ${op.path} ${show(reply)}`).toBe(422);
        expect(Array.isArray(reply.body.detail), show(reply)).toBe(true);
        for (const issue of reply.body.detail) expect(Object.keys(issue).sort()).toEqual(['loc', 'msg', 'type']);
        expect(reply.text).not.toMatch(/\bat .*\(|Error:/);
      }
    }
  });

  it('a NUL byte in a path segment -> 422', async () => {
    const reply = await world.call('/v1/tracking/lists/a%00b/metrics', { key });
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail[0]).toMatchObject({ loc: ['path'], type: 'value_error' });
  });

  it('a repeated parameter that the route does not declare repeatable -> 422', async () => {
    for (const path of [
      '/v1/articles?limit=5&limit=6',
      '/v1/geo/regions?with_stats=true&with_stats=false',
      '/v1/tracking/lists?limit=1&limit=2',
    ]) {
      const reply = await world.call(path, { key });
      expect(reply.status, `${path} ${show(reply)}`).toBe(422);
      expect(Array.isArray(reply.body.detail)).toBe(true);
    }
  });

  it('huge numbers -> 422, not a database error', async () => {
    for (const value of ['1e400', '99999999999999999999999', '-1e308', 'NaN', 'Infinity', '1.5']) {
      for (const param of ['limit', 'offset']) {
        const reply = await world.call(`/v1/articles?${param}=${value}`, { key });
        expect(reply.status, `${param}=${value} ${show(reply)}`).toBe(422);
      }
    }
  });
});

describe('urlIssues', () => {
  it('accepts ordinary URLs, plus signs, encoded spaces and non-ASCII text', () => {
    expect(urlIssues('/v1/articles', '?q=heat+pump&category=%2FSports&lang=de&x=%C3%BC%E2%82%AC')).toEqual([]);
    expect(urlIssues('/v1/geo/regions/US', '')).toEqual([]);
    expect(urlIssues('/v1/articles', '?q=tab%09ok')).toEqual([]);
  });

  it('names the offending parameter and caps the number of issues', () => {
    expect(urlIssues('/x', '?limit=%00')).toEqual([
      { loc: ['query', 'limit'], msg: 'Control characters (such as NUL) are not allowed', type: 'value_error' },
    ]);
    expect(urlIssues('/x', `?${Array.from({ length: 40 }, (_, i) => `p${i}=%00`).join('&')}`)).toHaveLength(10);
  });
});

describe('JSON bodies', () => {
  const rpc = (args: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_regions', arguments: args } });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    world.call('/mcp', { method: 'POST', key, body, headers: { accept: 'application/json, text/event-stream', ...headers } });

  it.each([
    ['a NUL in a string', rpc({ entity: 'a\u0000b' }), ['body', 'params', 'arguments', 'entity']],
    [
      'a control character in a nested array',
      { jsonrpc: '2.0', id: 1, method: 'ping', params: { x: ['ok', '\u001b[2J'] } },
      ['body', 'params', 'x', 1],
    ],
    ['a lone surrogate', rpc({ entity: 'a\ud800' }), ['body', 'params', 'arguments', 'entity']],
    ['a NUL in a key', { jsonrpc: '2.0', id: 1, method: 'ping', params: { 'k\u0000': 1 } }, ['body', 'params', 'k?']],
  ])('%s -> 422 naming its location, before the route runs', async (_, body, loc) => {
    const reply = await post(JSON.stringify(body));
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail).toEqual([expect.objectContaining({ loc, type: 'value_error' })]);
  });

  it('bytes that are not UTF-8 -> 422; clean bodies and malformed JSON are left to the route', async () => {
    const bytes = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]); // {"a":"\xff\xfe"}
    const raw = await bodyIssue(new Request('http://x/', { method: 'POST', body: bytes }));
    expect(raw).toEqual({ loc: ['body'], msg: 'The body is not valid UTF-8', type: 'value_error' });
    const clean = await post(JSON.stringify(rpc({ window: '24h' })));
    expect(clean.status, show(clean)).toBe(200);
    const malformed = await post('{');
    expect(malformed.status, show(malformed)).toBe(400);
  });
});
