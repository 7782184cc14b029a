// Public routes as browsers and abusers meet them: CORS and preflight, HTTP caching and 304, the
// per-IP limit (429, Retry-After, RateLimit headers, bulk counted per domain), no private field,
// no quota spent, and the widget script and demo page.
import { env } from 'cloudflare:test';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HERALD, NOPROFILE, NOW, publicRecords } from '../fixtures/public';
import { seed } from '../helpers/seed';
import { clearOfMinuteTurn, createWorld, show, type Reply, type Tenant, type World } from '../helpers/world';

let world: World;
let tenant: Tenant;
let n = 0;
const ip = () => `192.0.2.${++n}`;

beforeAll(async () => {
  world = await createWorld('public_edge');
  world.setNow(NOW);
  await seed(world, publicRecords());
  tenant = await world.tenant({ name: 'CANARY-PROJECT-NAME' });
});

describe('CORS', () => {
  it('answers a preflight for any origin without touching the database or Redis', async () => {
    const reply = await world.call('/public/platform-profile/bulk', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://publisher.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
      env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', UPSTASH_REDIS_REST_URL: env.DEAD_REDIS_UPSTASH_URL },
    });
    expect(reply.status, show(reply)).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBe('*');
    expect(reply.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
    expect(reply.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
    expect(Number(reply.headers.get('access-control-max-age'))).toBeGreaterThan(0);
  });

  it('every answer carries CORS headers, errors included', async () => {
    for (const path of [
      '/public/platform-profile?domain=herald.example.com',
      '/public/platform-profile?domain=nope',
      '/public/platform-profile/query?q=a',
    ]) {
      const reply = await world.call(path, { headers: { Origin: 'https://x.example', 'CF-Connecting-IP': ip() } });
      expect(reply.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(reply.headers.get('access-control-expose-headers'), path).toContain('ETag');
    }
  });
});

describe('HTTP caching', () => {
  it('sends Cache-Control with s-maxage and stale-while-revalidate, Vary and a strong ETag; If-None-Match is 304', async () => {
    const path = '/public/platform-profile?domain=herald.example.com';
    const first = await world.call(path, { headers: { 'CF-Connecting-IP': ip() } });
    expect(first.status, show(first)).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(first.headers.get('cache-control')).toMatch(/public.*s-maxage=\d+.*stale-while-revalidate=\d+/);
    expect(first.headers.get('vary')).toBe('Accept-Encoding');
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await world.call(path, { headers: { 'If-None-Match': tag, 'CF-Connecting-IP': ip() } });
      expect(again.status, tag).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.headers.get('access-control-allow-origin')).toBe('*');
    }
    const stale = await world.call(path, { headers: { 'If-None-Match': '"0000"', 'CF-Connecting-IP': ip() } });
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(first.text);
  });

  it('the same domain spelled differently gets the same ETag (same body)', async () => {
    const a = await world.call('/public/platform-profile?domain=herald.example.com', { headers: { 'CF-Connecting-IP': ip() } });
    const b = await world.call('/public/platform-profile?domain=HTTPS://WWW.HERALD.EXAMPLE.COM/', {
      headers: { 'CF-Connecting-IP': ip() },
    });
    expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
  });

  it('errors and POST answers are not stored by caches', async () => {
    const bad = await world.call('/public/platform-profile?domain=nope', { headers: { 'CF-Connecting-IP': ip() } });
    expect(bad.status).toBe(422);
    expect(bad.headers.get('cache-control')).toBe('no-store');
    expect(bad.headers.get('etag')).toBeNull();
    const post = await world.call('/public/platform-profile/bulk', {
      method: 'POST',
      body: { domains: [HERALD.domain] },
      headers: { 'CF-Connecting-IP': ip() },
    });
    expect(post.headers.get('cache-control')).toBe('no-store');
  });
});

describe('per-IP rate limit', () => {
  const limited = { PUBLIC_RATE_LIMIT_PER_MINUTE: '3' };
  // A sliding window: hits of the minute before count by their floored weight, so a run across a minute's turn reads fewer.
  beforeEach(() => clearOfMinuteTurn());

  it('the fourth request of a client within a minute is 429 with Retry-After and RateLimit headers; other clients go on', async () => {
    const client = ip();
    const statuses: number[] = [];
    let last: Reply | undefined;
    // Different domains (database reads) and the same one (the isolate cache) alike.
    for (const domain of ['herald.example.com', 'a1.example.com', 'herald.example.com', 'herald.example.com']) {
      last = await world.call(`/public/platform-profile?domain=${domain}`, { headers: { 'CF-Connecting-IP': client }, env: limited });
      statuses.push(last.status);
      if (last.status === 200) expect(last.headers.get('ratelimit')).toMatch(/^"ip-minute";r=\d+;t=\d+$/);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last!.body.detail).toMatchObject({ code: 'rate_limited' });
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.headers.get('ratelimit-policy')).toBe('"ip-minute";q=3;w=60');
    expect(last!.headers.get('access-control-allow-origin')).toBe('*');
    const other = await world.call('/public/platform-profile?domain=herald.example.com', {
      headers: { 'CF-Connecting-IP': ip() },
      env: limited,
    });
    expect(other.status, show(other)).toBe(200);
  });

  it('counts repeated cached answers exactly, not only database reads', async () => {
    const client = ip();
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      statuses.push(
        (await world.call('/public/platform-profile?domain=herald.example.com', { headers: { 'CF-Connecting-IP': client }, env: limited }))
          .status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });

  it('cached answers reach the shared count in Redis after each answer, so the next database read sees them', async () => {
    const client = ip();
    const env = { PUBLIC_RATE_LIMIT_PER_MINUTE: '40' };
    for (let i = 0; i < 15; i++) {
      const reply = await world.call('/public/platform-profile?domain=herald.example.com', {
        headers: { 'CF-Connecting-IP': client },
        env,
      });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('ratelimit'), `request ${i + 1}`).toMatch(new RegExp(`^"ip-minute";r=${39 - i};`));
    }
    const miss = await world.call('/public/platform-profile?domain=fresh-domain.example.com', {
      headers: { 'CF-Connecting-IP': client },
      env,
    });
    expect(miss.headers.get('ratelimit')).toMatch(/^"ip-minute";r=24;/);
  });

  it('a bulk check counts one per distinct domain', async () => {
    const client = ip();
    const env = { PUBLIC_RATE_LIMIT_PER_MINUTE: '10' };
    const first = await world.call('/public/platform-profile/bulk', {
      method: 'POST',
      body: { domains: ['a.example.com', 'b.example.com', 'A.example.com', 'c.example.com', 'bad value'] },
      headers: { 'CF-Connecting-IP': client },
      env,
    });
    expect(first.status, show(first)).toBe(200);
    expect(first.headers.get('ratelimit')).toMatch(/^"ip-minute";r=7;/);
    const tooMany = await world.call('/public/platform-profile/bulk', {
      method: 'POST',
      body: { domains: Array.from({ length: 8 }, (_, i) => `x${i}.example.com`) },
      headers: { 'CF-Connecting-IP': client },
      env,
    });
    expect(tooMany.status, show(tooMany)).toBe(429);
    expect(tooMany.body.detail.message).toMatch(/8 domains/);
  });

  it('IPv6 clients are limited per /64', async () => {
    const env = { PUBLIC_RATE_LIMIT_PER_MINUTE: '2' };
    const statuses = [];
    for (const addr of ['2001:db8:1:2::1', '2001:db8:1:2:ffff::9', '2001:0db8:0001:0002:abcd::1']) {
      statuses.push(
        (
          await world.call(`/public/platform-profile?domain=v6-${statuses.length}.example.com`, {
            headers: { 'CF-Connecting-IP': addr },
            env,
          })
        ).status,
      );
    }
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('while Redis is down the isolate limiter still limits (no unlimited bypass)', async () => {
    const down = { PUBLIC_RATE_LIMIT_PER_MINUTE: '2', UPSTASH_REDIS_REST_URL: env.DEAD_REDIS_UPSTASH_URL };
    const client = ip();
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const reply = await world.call(`/public/platform-profile?domain=down-${i}.example.com`, {
        headers: { 'CF-Connecting-IP': client },
        env: down,
      });
      statuses.push(reply.status);
      if (reply.status === 200) expect(reply.headers.get('ratelimit')).toMatch(/^"ip-minute-local"/);
    }
    expect(statuses).toEqual([200, 200, 429]);
  });
});

describe('security', () => {
  it('no private field in any public answer, and no project quota is spent', async () => {
    const list = await world.call('/v1/tracking/lists', { key: tenant.key });
    expect(list.status, show(list)).toBe(200);
    const secrets = [tenant.projectId, tenant.key, tenant.keyId, 'CANARY-PROJECT-NAME'];
    const privateKeys = [
      'project',
      'project_id',
      'key',
      'api_key',
      'tracking',
      'impressions',
      'position',
      'favicon_url',
      'is_video',
      'name',
      'id',
      'url_id',
      'body',
    ];
    const replies = [
      await world.call(`/public/platform-profile?domain=${HERALD.domain}`, { key: tenant.key, headers: { 'CF-Connecting-IP': ip() } }),
      await world.call('/public/platform-profile/bulk', {
        method: 'POST',
        body: { domains: [HERALD.domain, NOPROFILE.domain, 'bad'] },
        headers: { 'CF-Connecting-IP': ip() },
      }),
      await world.call('/public/platform-profile/query?q=herald', { headers: { 'CF-Connecting-IP': ip() } }),
    ];
    const walk = (value: unknown, path: string) => {
      if (Array.isArray(value)) for (const [i, v] of value.entries()) walk(v, `${path}[${i}]`);
      else if (value && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) {
          expect(privateKeys, `${path}.${k}`).not.toContain(k);
          walk(v, `${path}.${k}`);
        }
      }
    };
    for (const reply of replies) {
      expect(reply.status, show(reply)).toBe(200);
      for (const secret of secrets) expect(reply.text).not.toContain(secret);
      walk(reply.body, '$');
      expect(reply.headers.get('set-cookie')).toBeNull();
    }
    // A key sent along changes nothing: no quota counter moves for the public routes.
    const usage = await world.call('/v1/usage', { key: tenant.key });
    expect(usage.status, show(usage)).toBe(200);
    // Exactly the one keyed request above; the public calls (one of them carrying the key) spent nothing.
    expect(usage.body.month.used).toBe(1);
  });

  it('the public routes need no key and ignore a broken one', async () => {
    const reply = await world.call(`/public/platform-profile?domain=${HERALD.domain}`, {
      key: 'not-a-key',
      headers: { 'CF-Connecting-IP': ip() },
    });
    expect(reply.status, show(reply)).toBe(200);
  });
});

describe('widget', () => {
  it('serves a cacheable, cookie-free script that defines <discover-profile> and parses', async () => {
    const reply = await world.call('/public/widget.js');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(reply.headers.get('cache-control')).toMatch(/public.*s-maxage=\d+.*stale-while-revalidate/);
    expect(reply.headers.get('access-control-allow-origin')).toBe('*');
    expect(reply.headers.get('set-cookie')).toBeNull();
    expect(reply.text).toContain("customElements.define('discover-profile'");
    expect(reply.text).toContain("credentials: 'omit'");
    // Syntax check without running it (workerd has no DOM).
    expect(() => new Function(reply.text)).not.toThrow();
    // No request leaves for a third party: the only URL it builds is the API's own check.
    expect(reply.text.match(/https?:\/\/[^'"\s)]+/g) ?? []).toEqual([]);
    const again = await world.call('/public/widget.js', { headers: { 'If-None-Match': reply.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('the demo page embeds two profiles, a domain without one and an invalid value', async () => {
    const reply = await world.call('/public/widget-demo', { headers: { 'CF-Connecting-IP': ip() } });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
    const domains = [...reply.text.matchAll(/<discover-profile domain="([^"]+)"/g)].map((m) => m[1]);
    expect(domains).toEqual([HERALD.domain, 'xn--mnchen-bote-thb.de', NOPROFILE.domain, 'not a domain']);
    expect(reply.text).toContain('<script src="/public/widget.js" defer></script>');
    const chosen = await world.call('/public/widget-demo?domains=a.example.com,%3Cscript%3E', { headers: { 'CF-Connecting-IP': ip() } });
    expect(chosen.text).toContain('domain="&#60;script&#62;"');
    expect(chosen.text).not.toContain('<script>');
  });
});

describe('/docs without a CDN', () => {
  it('loads the reference UI from this deployment and asks for no web fonts', async () => {
    const reply = await world.call('/docs');
    expect(reply.status).toBe(200);
    const scripts = [...reply.text.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual(['/docs/scalar/standalone.js']);
    expect(reply.text).not.toMatch(/cdn\.jsdelivr|unpkg|fonts\.scalar/);
    expect(reply.text).toContain('"withDefaultFonts": false');
  });
});

describe('MCP tools', () => {
  it('check_publisher_profile and find_publisher_profiles run the public routes and answer the same bodies', async () => {
    const call = (name: string, args: object) =>
      world.call('/mcp', {
        method: 'POST',
        key: tenant.key,
        headers: { Accept: 'application/json, text/event-stream', 'CF-Connecting-IP': ip() },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      });
    const checked = await call('check_publisher_profile', { domain: `https://www.${HERALD.domain}/` });
    expect(checked.status, show(checked)).toBe(200);
    const rest = await world.call(`/public/platform-profile?domain=${HERALD.domain}`, { headers: { 'CF-Connecting-IP': ip() } });
    expect(JSON.parse(checked.body.result.content[0].text)).toEqual(rest.body);
    const found = await call('find_publisher_profiles', { q: 'herald' });
    expect(JSON.parse(found.body.result.content[0].text).results[0].domain).toBe(HERALD.domain);
    const bad = await call('check_publisher_profile', { domain: 'nope' });
    expect(bad.body.result.isError).toBe(true);
  });
});
