// Each finding of the security review (docs/SECURITY.md), written as the attack that exploited it and the
// refusal it now gets.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../functions/index';
import { DEFAULT_BODY_LIMIT } from '../../shared/http/body-limits';
import { BULK_BODY_MAX_BYTES } from '../../functions/public/body-limits';
import { MCP_BODY_MAX_BYTES } from '../../functions/mcp/routes/mcp';
import { chunkMessages } from '../../functions/jobs/jobs';
import { scanErrorOf } from '../../functions/jobs/scan';
import { MAX_LIST_ITEMS } from '../../shared/scope/list-caps';
import wranglerToml from '../../wrangler.toml?raw';
import { DEV_CURSOR_SECRET } from '../../shared/http/dev-secrets';
import { signCursor } from '../../shared/http/cursor';
import { MAX_OFFSET } from '../../shared/schemas/common';
import { AUTH_FAILURES_PER_MINUTE } from '../../shared/limits/auth-failures';
import { aggregateKey } from '../../shared/aggregates/engine';
import { readConfig } from '../../shared/env';
import { createStore } from '../../shared/db/redis';
import { trendRollupAggregate, type TrendRollupRequest } from '../../functions/trends/aggregate';
import { clearOfMinuteTurn, createWorld, show, type CallOptions, type World } from '../helpers/world';
import geoWorker from '../../functions/geo/index';

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

  it.each(['/v1/articles', '/v2/feed', '/v1/entities', '/v1/trends', '/v1/tracking/lists'])(
    '%s?offset=9007199254740991 -> 422 pointing past the cap',
    async (path) => {
      const reply = await world.call(`${path}?offset=9007199254740991`, { key });
      expect(reply.status, show(reply)).toBe(422);
      expect(reply.body.detail[0].loc).toEqual(['query', 'offset']);
      expect(reply.body.detail[0].msg).toMatch(/at most 10000.*cursor/);
      expect((await world.call(`${path}?offset=${MAX_OFFSET}`, { key })).status).toBe(200);
    },
  );

  it('the OpenAPI document states the caps', async () => {
    const doc = (await world.call('/openapi.json')).body;
    const params = doc.paths['/v2/feed'].get.parameters as any[];
    expect(params.find((p) => p.name === 'offset').schema.maximum, JSON.stringify(params.find((p) => p.name === 'offset'))).toBe(
      MAX_OFFSET,
    );
    expect(params.find((p) => p.name === 'entity').description).toContain(`At most ${MAX_LIST_ITEMS} values`);
  });
});

/** A POST straight into the Worker with any body (world.call sends strings only). */
async function post(path: string, body: BodyInit, headers: Record<string, string> = {}) {
  const request = new Request(`http://api.test${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
    duplex: 'half',
  } as RequestInit);
  const ctx = createExecutionContext();
  const response = await worker.fetch(request as any, { ...world.env } as any, ctx);
  await waitOnExecutionContext(ctx);
  return { status: response.status, text: await response.text() };
}

/** A 50 MB body produced lazily, counting the bytes the Worker actually pulled from it. */
function hugeStream(total = 50 * 1024 * 1024, chunk = 16 * 1024) {
  const counter = { pulled: 0 };
  const piece = new TextEncoder().encode('['.repeat(chunk));
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (counter.pulled >= total) return controller.close();
        counter.pulled += piece.byteLength;
        controller.enqueue(piece);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, counter };
}

describe('finding 2: bodies read before they are bounded', () => {
  it('an unauthenticated 50 MB POST /mcp with its declared length -> 413 unread, before auth', async () => {
    const { stream, counter } = hugeStream();
    const reply = await post('/mcp', stream, { 'content-length': String(50 * 1024 * 1024) });
    expect(reply.status, reply.text).toBe(413);
    expect(JSON.parse(reply.text).detail).toMatch(/Body larger than 262144 bytes/);
    // Memory watch: the Worker read (buffered) at most the route's limit plus one chunk of the 50 MB.
    expect(counter.pulled).toBeLessThanOrEqual(MCP_BODY_MAX_BYTES + 2 * 16 * 1024);
  });

  it('four unauthenticated streamed 50 MB POST /mcp (no length) -> 413 each, each pulling at most the limit', async () => {
    const attacks = [0, 1, 2, 3].map(() => hugeStream());
    const replies = await Promise.all(attacks.map(({ stream }) => post('/mcp', stream)));
    for (const reply of replies) expect(reply.status, reply.text).toBe(413);
    const pulled = attacks.reduce((sum, { counter }) => sum + counter.pulled, 0);
    expect(pulled).toBeLessThanOrEqual(4 * (MCP_BODY_MAX_BYTES + 2 * 16 * 1024));
  });

  it('bulk refuses 64 KiB + 1, any other path 8 KiB + 1, with a key or without', async () => {
    const bulk = await post('/public/platform-profile/bulk', 'x'.repeat(BULK_BODY_MAX_BYTES + 1));
    expect(bulk.status, bulk.text).toBe(413);
    const other = await post('/v1/articles', 'x'.repeat(DEFAULT_BODY_LIMIT + 1), { 'x-api-key': key });
    expect(other.status, other.text).toBe(413);
  });

  it('JSON nested 100,000 deep (under the MCP limit) is no pre-auth 500', async () => {
    const deep = `${'['.repeat(100_000)}"\\u0000"${']'.repeat(100_000)}`;
    const reply = await post('/mcp', deep);
    expect(reply.status, reply.text.slice(0, 500)).toBe(422);
    expect(reply.text).not.toMatch(/Internal|stack|RangeError/);
    const clean = await post('/mcp', '['.repeat(100_000) + ']'.repeat(100_000));
    expect(clean.status, clean.text.slice(0, 500)).toBe(401);
  });

  it('the OpenAPI document declares 413 on both body routes', async () => {
    const doc = (await world.call('/openapi.json')).body;
    expect(doc.paths['/mcp'].post.responses['413']).toBeDefined();
    expect(doc.paths['/public/platform-profile/bulk'].post.responses['413']).toBeDefined();
  });
});

describe('finding 7: headers and errors', () => {
  it.each([
    ['/v1/geo/regions', true, /default-src 'none'/],
    ['/no/such/route', true, /default-src 'none'/],
    ['/v1/articles', false, /default-src 'none'/],
    ['/openapi.json', false, /default-src 'none'/],
    ['/docs', false, /frame-ancestors 'self'/],
    ['/public/widget-demo', false, /script-src 'self'/],
    ['/public/widget.js', false, /default-src 'none'/],
  ] as const)('%s carries nosniff, a CSP with frame-ancestors and Referrer-Policy', async (path, withKey, csp) => {
    const reply = await world.call(path, { key: withKey ? key : undefined });
    expect(reply.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(reply.headers.get('Referrer-Policy')).toBe('no-referrer');
    expect(reply.headers.get('Content-Security-Policy')).toMatch(csp);
    expect(reply.headers.get('Content-Security-Policy')).toMatch(/frame-ancestors/);
  });

  it('a 413 and a 422 carry them too', async () => {
    const reply = await world.call('/v1/articles?offset=-1', { key });
    expect(reply.status).toBe(422);
    expect(reply.headers.get('X-Content-Type-Options')).toBe('nosniff');
    const big = await post('/mcp', 'x'.repeat(300 * 1024));
    expect(big.status).toBe(413);
  });

  it('a failed scan stores a code and a fixed message, never the exception text', async () => {
    const raw = Object.assign(new Error('relation "secret_internal_table" does not exist at 10.1.2.3'), { code: '42P01' });
    expect(scanErrorOf(raw)).toBe('scan_failed: The scan could not complete; it is retried at the next scan.');
    expect(scanErrorOf(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }))).toMatch(
      /^scan_timeout: /,
    );
    expect(scanErrorOf(new Error('password=hunter2'))).not.toContain('hunter2');
  });
});

describe('finding 6: keys that cannot be keys', () => {
  const DOWN = { NEON_HTTP_ENDPOINT: 'http://127.0.0.1:1/sql' };
  it.each(['dk_nope', `dk_${'x'.repeat(39)}!`, 'x'.repeat(43), `DK_${'0'.repeat(40)}`])(
    '%s is refused with 401 before any lookup (the database is down and it is still 401)',
    async (bad) => {
      const reply = await world.call('/v1/geo/languages', { key: bad, env: DOWN });
      expect(reply.status, show(reply)).toBe(401);
    },
  );

  it('a well-formed unknown key is looked up (so with the database down: 503), and a real key still works', async () => {
    const reply = await world.call('/v1/geo/languages', { key: `dk_${'A'.repeat(40)}`, env: DOWN });
    expect(reply.status, show(reply)).toBe(503);
    expect((await world.call('/v1/geo/languages', { key })).status).toBe(200);
  });
});

describe('finding 1: quota bypass through 304', () => {
  const used = async (k: string) => (await world.call('/v1/usage', { key: k })).body.month.used as number;

  it('If-None-Match: * answers 304 but spends quota like a 200', async () => {
    const start = await world.tenant({ plan: 'scale', countries: ['US'] });
    const before = await used(start.key);
    for (let i = 0; i < 3; i++) {
      const reply = await world.call('/v2/feed?limit=1', { key: start.key, headers: { 'If-None-Match': '*' } });
      expect(reply.status, show(reply)).toBe(304);
    }
    expect(await used(start.key), 'three * revalidations spent three').toBe(before + 3);
  });

  it("a tag sent to another key of the same scope is not this key's: 200, spent", async () => {
    const a = await world.tenant({ plan: 'scale', countries: ['US'] });
    const b = await world.tenant({ plan: 'scale', countries: ['US'] });
    const tagOfA = (await world.call('/v1/geo/regions', { key: a.key })).headers.get('etag')!;
    const before = await used(b.key);
    const reply = await world.call('/v1/geo/regions', { key: b.key, headers: { 'If-None-Match': tagOfA } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('etag')).not.toBe(tagOfA);
    expect(await used(b.key)).toBe(before + 1);
    // Its own tag revalidates for free.
    const own = await world.call('/v1/geo/regions', { key: b.key, headers: { 'If-None-Match': reply.headers.get('etag')! } });
    expect(own.status).toBe(304);
    expect(await used(b.key)).toBe(before + 1);
  });
});

describe('finding 4: the cron cannot be jammed', () => {
  it("250 due jobs (one tenant's many misses) go out as batches within 100 messages and 256 KB", () => {
    const jobs = Array.from({ length: 250 }, (_, i) => ({ type: 'scan' as const, listId: `list-${i}` }));
    const chunks = chunkMessages(jobs);
    expect(chunks.map((c) => c.length)).toEqual([100, 100, 50]);
    expect(chunks.flat()).toEqual(jobs);
    const large = Array.from({ length: 40 }, (_, i) => ({ type: 'scan' as const, listId: `${i}:${'x'.repeat(20_000)}` }));
    for (const chunk of chunkMessages(large)) {
      expect(new TextEncoder().encode(JSON.stringify(chunk)).byteLength).toBeLessThan(256 * 1024);
    }
  });
});

describe('finding 10: every public path reaches exactly one Worker', () => {
  /** `[env.<name>]` -> its route patterns (host and path), read from wrangler.toml as deployed. */
  function routesByWorker(toml: string): Map<string, string[]> {
    const workers = new Map<string, string[]>();
    for (const section of toml.split(/^\[env\./m).slice(1)) {
      const name = section.slice(0, section.indexOf(']'));
      const body = section.split(/^\[/m)[0]!;
      workers.set(
        name,
        [...body.matchAll(/pattern = "([^"]+)"/g)].map((m) => m[1]!),
      );
    }
    return workers;
  }
  // Cloudflare route patterns: `*` matches any characters; otherwise exact.
  const matches = (pattern: string, url: string) =>
    new RegExp(
      `^${pattern
        .split('*')
        .map((part) => part.replace(/[.?+^$|()[\]{}\\/]/g, '\\$&'))
        .join('.*')}$`,
    ).test(url);

  it('each path of the OpenAPI document, /openapi.json and /docs match the patterns of exactly one Worker', async () => {
    const workers = routesByWorker(wranglerToml as string);
    expect(workers.size).toBeGreaterThan(5);
    const doc = (await world.call('/openapi.json')).body;
    const paths = [...Object.keys(doc.paths).map((p) => p.replace(/\{[^}]+\}/g, 'x1')), '/openapi.json', '/docs'];
    expect(paths).toContain('/v1/usage');
    for (const path of paths) {
      const owners = [...workers]
        .filter(([, patterns]) => patterns.some((p) => matches(p, `api.example.com${path}`)))
        .map(([name]) => name);
      expect(owners, path).toHaveLength(1);
    }
  });
});

describe('finding 4: windows bounded to now at validation', () => {
  const ID = '00000000-0000-4000-8000-000000000000';
  const FAR = 'date_from=2026-01-01T00:00:00Z&date_to=9999-12-31T00:00:00Z';
  it.each([
    `/v1/tracking/lists/${ID}/metrics?period=custom&${FAR}`,
    `/v1/tracking/lists/${ID}/rollup?period=custom&${FAR}`,
    `/v1/tracking/lists/${ID}/matches?${FAR}`,
    `/v1/trends/${ID}/rollup?period=custom&${FAR}`,
    `/v2/feed?period=custom&${FAR}`,
    `/v1/articles?${FAR}`,
    `/v1/analytics/categories?period=custom&${FAR}`,
  ])('%s -> 422 on date_to, never 503 computing', async (path) => {
    const reply = await world.call(path, { key });
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail).toEqual([
      { loc: ['query', 'date_to'], msg: expect.stringMatching(/later than now plus one day/), type: 'value_error' },
    ]);
  });

  it('a date_from past now plus the slack (one day) is refused too; now plus the slack is still served', async () => {
    world.setNow('2026-11-20T12:00:00Z');
    try {
      const future = await world.call('/v2/feed?date_from=2026-11-21T12:00:01Z', { key });
      expect(future.status, show(future)).toBe(422);
      expect(future.body.detail[0].loc).toEqual(['query', 'date_from']);
      const edge = await world.call('/v1/articles?date_from=2026-11-20T00:00:00Z&date_to=2026-11-21T12:00:00Z', { key });
      expect(edge.status, show(edge)).toBe(200);
    } finally {
      world.setNow(undefined);
    }
  });

  it('the OpenAPI document states the bound', async () => {
    const doc = (await world.call('/openapi.json')).body;
    const params = doc.paths['/v1/tracking/lists/{list_id}/metrics'].get.parameters as any[];
    expect(params.find((p) => p.name === 'date_to').description).toContain('Later than now plus one day (24 hours) is 422');
  });
});

describe('finding 3: caches and their headers never cross projects', () => {
  it('the trend roll-up of two projects of the same scope is two cache entries', async () => {
    const store = createStore(readConfig({ ...world.env }));
    const auth = (projectId: string) =>
      ({
        keyId: `k-${projectId}`,
        keyKind: 'project',
        projectId,
        plan: 'scale',
        allowedCountries: ['US'],
        categories: null,
        apiEnabled: true,
        mcpEnabled: true,
        subscriptionStatus: 'active',
        historyDays: 365,
        rateLimitPerMinute: 300,
        addons: {},
        limitsMode: 'edge',
      }) satisfies TrendRollupRequest['auth'];
    const ask = (projectId: string): TrendRollupRequest => ({
      trendId: 't',
      query: { country: 'all', lang: 'all', period: '7d' },
      auth: auth(projectId),
    });
    const a = await aggregateKey(store, trendRollupAggregate, ask('project-a'));
    expect(await aggregateKey(store, trendRollupAggregate, ask('project-b'))).not.toBe(a);
    expect(
      await aggregateKey(store, trendRollupAggregate, { ...ask('project-a'), auth: { ...auth('project-a'), keyId: 'another key' } }),
      'keys of one project share',
    ).toBe(a);
  });

  it('X-Aggregate-Cache is sent to internal keys only: a project key asking right after another cannot tell', async () => {
    const other = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
    for (const k of [key, other.key]) {
      const reply = await world.call('/v2/feed?limit=2&sort_by=first_seen', { key: k });
      expect(reply.status, show(reply)).toBe(200);
      expect(reply.headers.get('x-aggregate-cache')).toBeNull();
    }
    const internal = await world.internalKey();
    const told = await world.call('/v2/feed?limit=2&sort_by=first_seen', { key: internal });
    expect(told.headers.get('x-aggregate-cache')).toMatch(/^(hit|miss|shared)$/);
  });
});

describe('finding 9: CURSOR_SECRET only as a secret', () => {
  it('wrangler.toml holds no CURSOR_SECRET: a plain wrangler deploy ships no public key', () => {
    expect(wranglerToml as string).not.toMatch(/^\s*CURSOR_SECRET\s*=/m);
    expect(wranglerToml as string).not.toContain(DEV_CURSOR_SECRET);
  });

  // With data: tests/workers/feed.test.ts "CURSOR_SECRET refused" (offset paging, next_cursor null, never 503).
  it('a cursor forged with the public dev value is refused outside development (400, not trusted)', async () => {
    const forged = await signCursor(DEV_CURSOR_SECRET, { b: 'any', k: [0, 'x', 'US', 'en'], n: new Date().toISOString(), t: 1, s: 1 });
    const reply = await world.call(`/v2/feed?limit=1&cursor=${forged}`, { key, env: { ENVIRONMENT: '' } });
    expect(reply.status, show(reply)).toBe(400);
    expect(reply.body.detail).toMatch(/not available on this deployment/);
  });
});

describe('finding 6: 401s are throttled per client IP', () => {
  const randomKey = () =>
    `dk_${Array.from(crypto.getRandomValues(new Uint8Array(40)), (b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[b % 62]).join('')}`;
  const from = (ip: string) => ({ 'CF-Connecting-IP': ip });

  it(`random keys from one address: ${AUTH_FAILURES_PER_MINUTE} answers 401, then 429 + Retry-After before any key lookup`, async () => {
    // A sliding window: hits of the minute before count by their weight, so a run across a minute's turn reads fewer.
    await clearOfMinuteTurn(10_000);
    const statuses: number[] = [];
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE + 10; i++) {
      statuses.push((await world.call('/v1/geo/languages', { key: randomKey(), headers: from('203.0.113.7') })).status);
    }
    expect(statuses.slice(0, AUTH_FAILURES_PER_MINUTE)).toEqual(Array(AUTH_FAILURES_PER_MINUTE).fill(401));
    expect(statuses.slice(AUTH_FAILURES_PER_MINUTE)).toEqual(Array(10).fill(429));
    const limited = await world.call('/v1/geo/languages', { key: randomKey(), headers: from('203.0.113.7') });
    expect(limited.status, show(limited)).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.detail.code).toBe('rate_limited');
    // No lookup: with PostgreSQL down it is still 429 (a lookup would answer 503), missing keys too.
    const down = await world.call('/v1/geo/languages', {
      key: randomKey(),
      headers: from('203.0.113.7'),
      env: { NEON_HTTP_ENDPOINT: 'http://127.0.0.1:1/sql' },
    });
    expect(down.status, show(down)).toBe(429);
    expect((await world.call('/v1/geo/languages', { headers: from('203.0.113.7') })).status).toBe(429);
  });

  it('a deployed keyed Worker throttles requests without a key the same way (its keyless app, shared/http/keyless-area.ts)', async () => {
    const geo = geoWorker as unknown as CallOptions['worker'];
    await clearOfMinuteTurn(10_000);
    const statuses: number[] = [];
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE + 2; i++) {
      statuses.push((await world.call('/v1/geo/regions', { headers: from('203.0.113.99'), worker: geo })).status);
    }
    expect(statuses).toEqual([...Array(AUTH_FAILURES_PER_MINUTE).fill(401), 429, 429]);
    // A valid key from another address is served by the same Worker.
    expect((await world.call('/v1/geo/regions', { key, headers: from('192.0.2.45'), worker: geo })).status).toBe(200);
  });

  it('the OpenAPI document states the bound on every keyed 429', async () => {
    const doc = (await world.call('/openapi.json')).body;
    expect(doc.paths['/v1/geo/languages'].get.responses['429'].description).toContain(
      `more than ${AUTH_FAILURES_PER_MINUTE} missing or invalid keys in a minute from this address`,
    );
  });

  it('other addresses and valid keys elsewhere are not affected', async () => {
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE + 2; i++)
      await world.call('/v1/geo/languages', { key: randomKey(), headers: from('198.51.100.9') });
    expect((await world.call('/v1/geo/languages', { key, headers: from('192.0.2.44') })).status).toBe(200);
    expect((await world.call('/v1/geo/languages', { key: randomKey(), headers: from('192.0.2.44') })).status).toBe(401);
  });
});
