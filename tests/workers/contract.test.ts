// The shared contract: auth, error shapes, unknown paths, the OpenAPI document and /docs.
import { beforeAll, describe, expect, it } from 'vitest';
import { createWorld, show, type World } from '../helpers/world';

let world: World;
let key: string;
let noMarkets: string;

beforeAll(async () => {
  world = await createWorld('contract');
  key = (await world.tenant({ countries: ['US'] })).key;
  noMarkets = (await world.tenant({ countries: [] })).key;
});

describe('authentication', () => {
  it('401 without a key, naming both accepted headers', async () => {
    const reply = await world.call('/v1/geo/languages');
    expect(reply.status, show(reply)).toBe(401);
    expect(reply.body).toEqual({ detail: 'Missing API key: send the X-API-Key header or an Authorization: Bearer <key> header' });
  });

  it('401 for an unknown key and for a malformed Authorization header', async () => {
    expect((await world.call('/v1/geo/languages', { key: 'dk_nope' })).status).toBe(401);
    const basic = await world.call('/v1/geo/languages', { headers: { Authorization: `Basic ${key}` } });
    expect(basic.status, show(basic)).toBe(401);
  });

  it.each(['api_key', 'key', 'token'])('401 for a key in the query string (%s)', async (name) => {
    const reply = await world.call(`/v1/geo/languages?${name}=${key}`);
    expect(reply.status, show(reply)).toBe(401);
    expect(reply.body.detail).toMatch(/query string are not accepted/);
  });

  it('200 with X-API-Key and with Bearer', async () => {
    expect((await world.call('/v1/geo/languages', { key })).status).toBe(200);
    expect((await world.call('/v1/geo/languages', { bearer: key })).status).toBe(200);
  });

  it('a revoked key stops working once the isolate cache forgets it', async () => {
    const tenant = await world.tenant();
    const { revokeKey } = await import('../../shared/admin/keys');
    const { forgetCachedKeys } = await import('../../shared/auth/keys');
    expect((await world.call('/v1/geo/languages', { key: tenant.key })).status).toBe(200);
    await revokeKey(world.db, tenant.keyId, new Date());
    forgetCachedKeys();
    expect((await world.call('/v1/geo/languages', { key: tenant.key })).status).toBe(401);
  });
});

// Past its 30 s in the isolate's cache, a key answers while it is read again beside the request
// (shared/auth/keys.ts): the limits wait for that read before anything is sent.
describe('a key past its cache lifetime', () => {
  it('revoked meanwhile (without an announcement): 401, never the held context', async () => {
    const tenant = await world.tenant();
    const { revokeKey } = await import('../../shared/admin/keys');
    const { expireCachedKeys } = await import('../../shared/auth/keys');
    expect((await world.call('/v1/geo/languages', { key: tenant.key })).status).toBe(200);
    await revokeKey(world.db, tenant.keyId, new Date());
    expireCachedKeys();
    const reply = await world.call('/v1/geo/regions/US', { key: tenant.key });
    expect(reply.status, show(reply)).toBe(401);
  });

  it('its markets changed meanwhile: the request runs again under the markets it has now', async () => {
    const tenant = await world.tenant({ countries: ['US', 'GB'] });
    const { expireCachedKeys } = await import('../../shared/auth/keys');
    // Allowed (404: this world has no US data), then outside the project's markets.
    expect((await world.call('/v1/geo/regions/US', { key: tenant.key })).status).toBe(404);
    await world.db.$client.query(`UPDATE projects SET countries = '{GB}' WHERE id = $1`, [tenant.projectId]);
    expireCachedKeys();
    const reply = await world.call('/v1/geo/regions/US', { key: tenant.key });
    expect(reply.status, show(reply)).toBe(403);
  });
});

describe('error contract', () => {
  it('unknown paths are 404 JSON with a string detail', async () => {
    const reply = await world.call('/v9/nothing', { key });
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: 'No route for GET /v9/nothing' });
  });

  it('an unknown enum value is 422 with {loc, msg, type}', async () => {
    const reply = await world.call('/v1/geo/regions?window=5y', { key });
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail).toEqual([{ loc: ['query', 'window'], msg: expect.stringContaining('1h'), type: 'enum' }]);
  });

  it('an out-of-scope country is 403 naming the region and the allowed ones', async () => {
    const reply = await world.call('/v1/geo/regions/FR', { key });
    expect(reply.status, show(reply)).toBe(403);
    expect(reply.body).toEqual({ detail: "Region 'FR' is not allowed for this API key. Allowed regions: US." });
  });

  it('a key whose project has no markets gets 403 market_not_entitled for any single market (one rule for every market-scoped route)', async () => {
    const reply = await world.call('/v1/geo/regions/US', { key: noMarkets });
    expect(reply.status, show(reply)).toBe(403);
    expect(reply.body.detail).toMatchObject({ code: 'market_not_entitled' });
  });

  it.each([
    ['an unreachable database', { NEON_HTTP_ENDPOINT: 'http://127.0.0.1:1/sql' }],
    ['a missing database', { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/no_such_database' }],
  ])('%s: the plan cannot be read -> 503 entitlement_unavailable with Retry-After', async (_, override) => {
    const { default: worker } = await import('../../functions/index');
    const { createExecutionContext } = await import('cloudflare:test');
    const response = await worker.fetch(
      new Request('http://api.test/v1/geo/languages', { headers: { 'X-API-Key': `dk_${'0'.repeat(40)}` } }) as any,
      { ...world.env, ...override } as any,
      createExecutionContext(),
    );
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toEqual({
      detail: { code: 'entitlement_unavailable', message: 'Your plan could not be read just now; retry shortly.' },
    });
  });
});

describe('security suite over every documented route', () => {
  const SAMPLE: Record<string, string> = { list_id: '00000000-0000-4000-8000-000000000000', alpha_2: 'US' };

  it('every keyed operation answers 401 without a key and 401 for a query-string key', async () => {
    const doc = (await world.call('/openapi.json')).body;
    const operations = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      Object.entries<any>(item)
        .filter(([, op]) => op.security?.length)
        .map(([method]) => [method.toUpperCase(), path.replace(/\{(\w+)\}/g, (_, p) => SAMPLE[p] ?? 'x')]),
    );
    expect(operations.length).toBeGreaterThan(10);
    for (const [method, path] of operations) {
      const none = await world.call(path, { method });
      expect(none.status, `${method} ${path}`).toBe(401);
      expect(typeof none.body.detail, `${method} ${path}`).toBe('string');
      const query = await world.call(`${path}${path.includes('?') ? '&' : '?'}api_key=${key}`, { method });
      expect(query.status, `${method} ${path} with ?api_key`).toBe(401);
    }
  });
});

describe('documentation', () => {
  it('serves an OpenAPI 3.1 document with security schemes and documented errors', async () => {
    const reply = await world.call('/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.body.openapi).toBe('3.1.0');
    expect(Object.keys(reply.body.components.securitySchemes)).toEqual(['ApiKeyHeader', 'BearerAuth']);
    for (const [path, item] of Object.entries<any>(reply.body.paths)) {
      for (const operation of Object.values<any>(item)) {
        expect(operation.summary, path).toBeTruthy();
        expect(operation.description, path).toBeTruthy();
        expect(operation.responses['200'], path).toBeTruthy();
        if (!path.startsWith('/public')) {
          expect(operation.security, path).toEqual([{ ApiKeyHeader: [] }, { BearerAuth: [] }]);
          expect(operation.responses['401'], path).toBeTruthy();
        }
        for (const parameter of operation.parameters ?? []) expect(parameter.description, `${path} ${parameter.name}`).toBeTruthy();
      }
    }
  });

  it('serves the interactive reference at /docs', async () => {
    const reply = await world.call('/docs');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/text\/html/);
    expect(reply.text).toContain('/openapi.json');
  });
});
