// Differential check: the in-process Redis engine against a real Redis, same inputs, same replies.
//   tsx tests/gateway-node/diff-redis.ts     (needs redis://127.0.0.1:6379 or SMOKE_REDIS_URL)
// Part 1 runs raw commands on both backends. Part 2 runs @upstash/ratelimit through two gateways
// with the same mocked clock (window boundaries, previous-window weighting, refills, refunds).
import { Ratelimit } from '@upstash/ratelimit';
import { Redis } from '@upstash/redis';
import { startGateway } from '../../scripts/gateway/index';
import { MemoryRedis } from '../../scripts/gateway/memory-redis';
import { RealRedis } from '../../scripts/gateway/redis-real';
import { ReplyError, Status, type Reply } from '../../scripts/gateway/redis-types';
import { assert, check, summary } from './harness';

const redisUrl = process.env.SMOKE_REDIS_URL ?? 'redis://127.0.0.1:6379';
const P = `gwdiff:${process.pid}:`;

function show(r: Reply): unknown {
  if (r instanceof ReplyError) return `-${r.message.replace(/^(EXECABORT [^:]*):.*/, '$1')}`;
  if (r instanceof Status) return `+${r.value}`;
  if (Buffer.isBuffer(r)) return r.toString('utf8');
  if (Array.isArray(r)) return r.map(show);
  return r;
}

const COMMANDS: string[][] = [
  ['SET', 'a', '10'], ['GET', 'a'], ['INCR', 'a'], ['INCRBY', 'a', '-20'], ['DECR', 'a'], ['DECRBY', 'a', '5'],
  ['INCRBY', 'a', '1.5'], ['INCRBY', 'a', '01'], ['SET', 'b', 'x'], ['INCR', 'b'], ['SET', 'a', '1', 'NX'],
  ['SET', 'a', '1', 'XX', 'GET'], ['SET', 'new', '1', 'XX'], ['SET', 'a', '2', 'EX', '0'], ['SET', 'a', '2', 'NX', 'XX'],
  ['SET', 'c', 'v', 'PX', '100000'], ['PTTL', 'missing'], ['TTL', 'a'], ['EXPIRE', 'a', '100', 'NX'], ['EXPIRE', 'a', '50', 'NX'],
  ['EXPIRE', 'a', '10', 'GT'], ['EXPIRE', 'a', '10', 'LT'], ['PERSIST', 'a'], ['TTL', 'a'], ['EXPIRE', 'missing', '10'],
  ['INCRBYFLOAT', 'f', '0.1'], ['INCRBYFLOAT', 'f', '0.2'], ['INCRBYFLOAT', 'f', '10'], ['INCRBYFLOAT', 'f', '-10.3'],
  ['INCRBYFLOAT', 'f', '2.5e3'], ['INCRBYFLOAT', 'b', '1'], ['MSET', 'm1', '1', 'm2', '2'], ['MGET', 'm1', 'h', 'm2', 'zz'],
  ['MSET', 'm1'], ['GET'], ['DEL', 'm1', 'm2', 'm3'], ['EXISTS', 'a', 'a', 'b', 'none'], ['TYPE', 'a'],
  ['HSET', 'h', 'f1', 'v1', 'f2', '2'], ['HSET', 'h', 'f1', 'v9', 'f3', '3'], ['HGET', 'h', 'f1'], ['HGETALL', 'h'],
  ['HINCRBY', 'h', 'f2', '5'], ['HINCRBY', 'h', 'f1', '1'], ['HMGET', 'h', 'f1', 'nope'], ['HDEL', 'h', 'f1', 'x'],
  ['HLEN', 'h'], ['HSET', 'h', 'odd'], ['GET', 'h'], ['HGET', 'a', 'x'], ['HDEL', 'h', 'f2', 'f3'], ['EXISTS', 'h'],
  ['SADD', 's', 'a', 'b', 'a'], ['SREM', 's', 'a', 'q'], ['SISMEMBER', 's', 'b'], ['SCARD', 's'], ['SMEMBERS', 's'],
  ['ZADD', 'z', '1', 'a', '2', 'b', '2', 'aa', '1.1', 'c'], ['ZADD', 'z', 'NX', '5', 'a', '6', 'd'],
  ['ZADD', 'z', 'XX', 'CH', '7', 'a', '8', 'e'], ['ZADD', 'z', 'GT', '1', 'a'], ['ZADD', 'z', 'INCR', '0.5', 'b'],
  ['ZADD', 'z', 'x', 'a'], ['ZADD', 'z', 'NX', 'XX', '1', 'a'], ['ZRANGE', 'z', '0', '-1', 'WITHSCORES'],
  ['ZRANGE', 'z', '1', '2'], ['ZRANGE', 'z', '-2', '100'], ['ZRANGE', 'z', '5', '1'], ['ZRANGE', 'z', '(1.1', '+inf', 'BYSCORE'],
  ['ZRANGE', 'z', '+inf', '-inf', 'BYSCORE', 'REV', 'LIMIT', '1', '2', 'WITHSCORES'], ['ZRANGE', 'z', '0', '1', 'LIMIT', '0', '1'],
  ['ZREVRANGE', 'z', '0', '1'], ['ZRANGEBYSCORE', 'z', '-inf', '2', 'WITHSCORES'], ['ZCOUNT', 'z', '(1.1', '7'],
  ['ZSCORE', 'z', 'c'], ['ZINCRBY', 'z', '2', 'c'], ['ZREM', 'z', 'a', 'zz'], ['ZCARD', 'z'], ['ZREMRANGEBYSCORE', 'z', '-inf', '(3'],
  ['ZRANGE', 'z', '0', '-1', 'WITHSCORES'], ['ZCOUNT', 'z', 'x', '1'], ['GETDEL', 'c'], ['GETDEL', 'c'], ['STRLEN', 'b'],
  ['SETNX', 'b', 'q'], ['SETEX', 'sx', '100', 'v'], ['TTL', 'sx'], ['NOSUCHCMD', 'a'], ['PING'], ['PING', 'hi'], ['ECHO', 'e'],
];

const withPrefix = (c: string[]) => {
  const keyless = new Set(['PING', 'ECHO', 'NOSUCHCMD']);
  if (keyless.has(c[0]) || c.length < 2) return c;
  if (c[0] === 'MSET') return [c[0], ...c.slice(1).map((x, i) => (i % 2 === 0 ? P + x : x))];
  const multiKey = ['MGET', 'DEL', 'EXISTS'].includes(c[0]);
  return [c[0], ...c.slice(1).map((x, i) => (i === 0 || multiKey ? P + x : x))];
};

const real = new RealRedis(redisUrl);
const mem = new MemoryRedis();

await check('commands: same replies from memory engine and Redis', async () => {
  for (const c of COMMANDS) {
    const cmd = withPrefix(c);
    const [r, m] = [show(await real.exec(cmd)), show(await mem.exec(cmd))];
    const clean = (v: unknown) => (typeof v === 'string' ? v.replaceAll(P, '') : v);
    assert.deepEqual(JSON.parse(JSON.stringify(m), (_k, v) => clean(v)), JSON.parse(JSON.stringify(r), (_k, v) => clean(v)), `${c.join(' ')}`);
  }
  const tx = [['INCR', `${P}t`], ['INCR', `${P}h`], ['GET', `${P}t`]];
  assert.deepEqual(show((await mem.multi(tx)) as Reply), show((await real.multi(tx)) as Reply));
  const aborted = [['INCR', `${P}t`], ['GET']];
  assert.deepEqual(show(await mem.multi(aborted)), show(await real.multi(aborted)));
  assert.deepEqual(show(await mem.exec(['GET', `${P}t`])), show(await real.exec(['GET', `${P}t`])));
});

await check('commands: cleanup', async () => {
  const keys = (await real.exec(['KEYS', `${P}*`])) as Buffer[];
  if (keys.length) await real.exec(['DEL', ...keys.map(String)]);
  await real.close();
});

// Part 2: ratelimit with a mocked clock, through two gateways.
const gwReal = await startGateway({ databaseUrl: 'postgres://postgres@127.0.0.1:5432/test', redisUrl });
const gwMem = await startGateway({ databaseUrl: 'postgres://postgres@127.0.0.1:5432/test' });
let now = Math.floor(Date.now() / 10_000) * 10_000 + 20_000_000; // window-aligned, far from real time
const realNow = Date.now;
Date.now = () => now;

for (const [name, make] of [
  ['slidingWindow', () => Ratelimit.slidingWindow(5, '10 s')],
  ['fixedWindow', () => Ratelimit.fixedWindow(5, '10 s')],
  ['tokenBucket', () => Ratelimit.tokenBucket(2, '3 s', 5)],
  ['cachedFixedWindow', () => Ratelimit.cachedFixedWindow(5, '10 s')],
] as const) {
  await check(`ratelimit ${name}: identical outcomes over time (memory vs Redis)`, async () => {
    const prefix = `${P}rl:${name}:${realNow()}`;
    const mk = (url: string, token: string) =>
      new Ratelimit({
        redis: new Redis({ url, token }),
        limiter: make(),
        prefix,
        ephemeralCache: name === 'cachedFixedWindow' ? new Map() : false, // that one requires it
      });
    const [a, b] = [mk(gwReal.upstashUrl, gwReal.upstashToken), mk(gwMem.upstashUrl, gwMem.upstashToken)];
    // Steps: [ms to advance, rate]. Crosses several window boundaries; includes refunds (rate < 0).
    const steps = [[0, 1], [100, 1], [1000, 3], [2000, 1], [6000, 1], [500, 1], [1500, 2], [3000, 1], [100, -2],
      [100, 1], [4000, 1], [9000, 1], [1, 1], [12000, 1], [2500, 4], [0, 1], [7000, 1], [700, 1]];
    const seen = new Set<string>();
    for (const [adv, rate] of steps) {
      now += adv;
      const [x, y] = [await a.limit('id', { rate }), await b.limit('id', { rate })];
      const pick = (r: typeof x) => ({ success: r.success, remaining: r.remaining, reset: r.reset, limit: r.limit, reason: r.reason });
      assert.deepEqual(pick(y), pick(x), `at +${adv} rate ${rate}`);
      seen.add(`${x.success}:${x.reason}`);
      assert.deepEqual(await b.getRemaining('id'), await a.getRemaining('id'));
    }
    // Both outcomes occurred, answered by Redis (not a fail-open timeout).
    assert.ok(seen.has('true:undefined') && [...seen].some((v) => v.startsWith('false')), [...seen].join(','));
  });
}
Date.now = realNow;

await check('ratelimit: cleanup', async () => {
  const r = new Redis({ url: gwReal.upstashUrl, token: gwReal.upstashToken });
  const keys = await r.keys(`${P}*`);
  if (keys.length) await r.del(...keys);
  await gwReal.close();
  await gwMem.close();
});

process.exit(summary() ? 1 : 0);
