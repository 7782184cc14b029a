// @upstash/redis and @upstash/ratelimit checks through the gateway's REST endpoint.
import { Ratelimit } from '@upstash/ratelimit';
import { Redis } from '@upstash/redis';
import type { Gateway } from '../../scripts/gateway/index';
import { assert, check, rejects, sleep } from './harness';

/** Waits while a 10 s window is about to roll over, so a 4-request sequence stays in one window. */
async function awayFromBoundary(windowMs: number): Promise<void> {
  const into = Date.now() % windowMs;
  if (into > windowMs - 1500) await sleep(windowMs - into + 50);
}

async function raw(gw: Gateway, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${gw.upstashUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.upstashToken}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

export async function upstashChecks(gw: Gateway): Promise<void> {
  const p = `gwsmoke:${process.pid}:${gw.backend.redis}:`;
  const redis = new Redis({ url: gw.upstashUrl, token: gw.upstashToken }); // base64 by default
  const plain = new Redis({ url: gw.upstashUrl, token: gw.upstashToken, responseEncoding: false });

  await check('upstash: strings, counters, expiry', async () => {
    assert.equal(await redis.set(`${p}s`, 'héllo ✓ OK'), 'OK');
    assert.equal(await redis.get(`${p}s`), 'héllo ✓ OK');
    assert.equal(await plain.get(`${p}s`), 'héllo ✓ OK');
    await redis.set(`${p}obj`, { a: 1, b: [true, null] });
    assert.deepEqual(await redis.get(`${p}obj`), { a: 1, b: [true, null] });
    assert.equal(await redis.set(`${p}s`, 'x', { nx: true }), null);
    assert.equal(await redis.incr(`${p}n`), 1);
    assert.equal(await redis.incrby(`${p}n`, 41), 42);
    assert.equal(await redis.incrbyfloat(`${p}f`, 0.1), 0.1);
    assert.equal(await redis.incrbyfloat(`${p}f`, 0.2), 0.3);
    assert.equal(await redis.decr(`${p}n`), 41);
    assert.deepEqual(await redis.mget(`${p}n`, `${p}missing`), [41, null]);
    assert.equal(await redis.expire(`${p}n`, 100), 1);
    const ttl = await redis.ttl(`${p}n`);
    assert.ok(ttl > 95 && ttl <= 100, `ttl ${ttl}`);
    assert.equal(await redis.ttl(`${p}missing`), -2);
    await redis.set(`${p}px`, 'v', { px: 60 });
    await sleep(120);
    assert.equal(await redis.get(`${p}px`), null);
    assert.equal(await redis.exists(`${p}s`, `${p}n`, `${p}missing`), 2);
    assert.equal(await redis.ping(), 'PONG');
  });

  await check('upstash: hashes, sets, sorted sets, keys', async () => {
    assert.equal(await redis.hset(`${p}h`, { f1: 'v1', f2: 2 }), 2);
    assert.equal(await redis.hget(`${p}h`, 'f1'), 'v1');
    assert.equal(await redis.hincrby(`${p}h`, 'f2', 3), 5);
    assert.deepEqual(await redis.hgetall(`${p}h`), { f1: 'v1', f2: 5 });
    assert.equal(await redis.hdel(`${p}h`, 'f1', 'nope'), 1);
    assert.equal(await redis.sadd(`${p}set`, 'a', 'b', 'a'), 2);
    assert.deepEqual((await redis.smembers(`${p}set`)).sort(), ['a', 'b']);
    assert.equal(await redis.sismember(`${p}set`, 'b'), 1);
    assert.equal(await redis.scard(`${p}set`), 2);
    assert.equal(await redis.zadd(`${p}z`, { score: 2, member: 'b' }, { score: 1, member: 'a' }, { score: 3.5, member: 'c' }), 3);
    assert.deepEqual(await redis.zrange(`${p}z`, 0, -1), ['a', 'b', 'c']);
    assert.deepEqual(await redis.zrange(`${p}z`, 0, -1, { withScores: true }), ['a', 1, 'b', 2, 'c', 3.5]);
    assert.deepEqual(await redis.zrange(`${p}z`, 3, 2, { byScore: true, rev: true }), ['b']);
    assert.equal(await redis.zcount(`${p}z`, '(1', '+inf'), 2);
    assert.equal(await redis.zremrangebyscore(`${p}z`, 0, 1), 1);
    assert.equal(await redis.zcard(`${p}z`), 2);
    assert.deepEqual((await redis.keys(`${p}[hz]`)).sort(), [`${p}h`, `${p}z`]);
    const [cursor, found] = await redis.scan(0, { match: `${p}set`, count: 1000 });
    assert.ok(String(cursor) === '0' || found.length <= 1);
  });

  await check('upstash: pipeline and multi-exec', async () => {
    const out = await redis.pipeline().set(`${p}pa`, 'A').incr(`${p}pn`).get(`${p}pa`).exec();
    assert.deepEqual(out, ['OK', 1, 'A']);
    const errs = await redis.pipeline().incr(`${p}pa`).get(`${p}pa`).exec({ keepErrors: true });
    assert.match(String(errs[0].error), /not an integer/);
    assert.equal(errs[1].result, 'A');
    const tx = await redis.multi().incr(`${p}pn`).incr(`${p}pn`).get(`${p}pn`).exec();
    assert.deepEqual(tx, [2, 3, 3]);
  });

  await check('upstash: REST shapes (base64, errors, auth)', async () => {
    await redis.set(`${p}b`, 'ü');
    const b64 = await raw(gw, '', ['MGET', `${p}b`, `${p}missing`], { 'upstash-encoding': 'base64' });
    assert.deepEqual(b64, { status: 200, body: { result: [Buffer.from('ü').toString('base64'), null] } });
    assert.deepEqual(await raw(gw, '', ['SET', `${p}b`, 1], { 'upstash-encoding': 'base64' }), { status: 200, body: { result: 'OK' } });
    const bad = await raw(gw, '', ['INCR', `${p}h`]);
    assert.equal(bad.status, 400);
    assert.match(String((bad.body as { error: string }).error), /^WRONGTYPE/);
    const noAuth = await fetch(gw.upstashUrl, { method: 'POST', body: '["PING"]', headers: { authorization: 'Bearer wrong' } });
    assert.equal(noAuth.status, 401);
    assert.ok('error' in ((await noAuth.json()) as object));
    const nos = await raw(gw, '', ['EVALSHA', 'ffffffffffffffffffffffffffffffffffffffff', 0]);
    assert.deepEqual(nos, { status: 400, body: { error: 'NOSCRIPT No matching script. Please use EVAL.' } });
    const err = await rejects(new Redis({ url: gw.upstashUrl, token: 'nope', retry: false }).get('x'));
    assert.ok(err instanceof Error);
  });

  for (const [name, limiter] of [
    ['slidingWindow', Ratelimit.slidingWindow(3, '10 s')],
    ['fixedWindow', Ratelimit.fixedWindow(3, '10 s')],
    ['tokenBucket', Ratelimit.tokenBucket(1, '10 s', 3)],
  ] as const) {
    await check(`ratelimit ${name}(3, 10 s): 3 allowed, 4th denied`, async () => {
      const rl = new Ratelimit({ redis, limiter, prefix: `${p}rl:${name}`, ephemeralCache: false });
      await awayFromBoundary(10_000);
      const seq = [];
      for (let i = 0; i < 4; i++) seq.push(await rl.limit('user-1'));
      assert.deepEqual(seq.map((r) => r.success), [true, true, true, false]);
      assert.deepEqual(seq.map((r) => r.remaining), [2, 1, 0, 0]);
      assert.ok(seq.every((r) => r.limit === 3 && r.reason === undefined));
      assert.equal((await rl.getRemaining('user-1')).remaining, 0);
      assert.equal((await rl.limit('user-2')).success, true); // identifiers are independent
      await rl.resetUsedTokens('user-1');
      assert.equal((await rl.limit('user-1')).success, true);
    });
  }

  await check('upstash: cleanup', async () => {
    const keys = await redis.keys(`${p}*`);
    if (keys.length) await redis.del(...keys);
    assert.deepEqual(await redis.keys(`${p}*`), []);
  });
}
