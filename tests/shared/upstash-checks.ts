// @upstash/redis checks against a gateway's REST endpoint, shared by the workerd suite (real Redis)
// and the Node suite (the in-process engine): the same client calls must give the same answers.
import type { Redis } from '@upstash/redis/cloudflare';
import { expect } from 'vitest';
import { caught } from './caught';

/** Strings, JSON values, counters and expiry; keys under `P`. */
export async function checkStringsAndCounters(r: Redis, P: string): Promise<void> {
  expect(await r.set(`${P}s`, 'héllo ✓ OK')).toBe('OK');
  expect(await r.get(`${P}s`)).toBe('héllo ✓ OK');
  expect(await r.set(`${P}s`, 'x', { nx: true })).toBeNull();
  await r.set(`${P}obj`, { a: 1, b: [true, null], u: 'ü' });
  expect(await r.get(`${P}obj`)).toEqual({ a: 1, b: [true, null], u: 'ü' });
  expect(await r.incr(`${P}n`)).toBe(1);
  expect(await r.incrby(`${P}n`, 41)).toBe(42);
  expect(await r.decr(`${P}n`)).toBe(41);
  expect(await r.incrbyfloat(`${P}f`, 0.1)).toBe(0.1);
  expect(await r.incrbyfloat(`${P}f`, 0.2)).toBe(0.3);
  expect(await r.mget(`${P}n`, `${P}missing`)).toEqual([41, null]);
  expect(await r.expire(`${P}n`, 100)).toBe(1);
  const ttl = await r.ttl(`${P}n`);
  expect(ttl).toBeGreaterThan(95);
  expect(ttl).toBeLessThanOrEqual(100);
  expect(await r.ttl(`${P}missing`)).toBe(-2);
  await r.set(`${P}px`, 'v', { px: 50 });
  await new Promise((done) => setTimeout(done, 120));
  expect(await r.get(`${P}px`)).toBeNull();
  expect(await r.exists(`${P}s`, `${P}n`, `${P}missing`)).toBe(2);
  expect(await r.del(`${P}s`, `${P}missing`)).toBe(1);
  expect(await r.ping()).toBe('PONG');
}

/** Hashes, sets, sorted sets, KEYS, SCAN and WRONGTYPE; keys under `P`. */
export async function checkCollections(r: Redis, P: string): Promise<void> {
  expect(await r.hset(`${P}h`, { f1: 'v1', f2: 2 })).toBe(2);
  expect(await r.hget(`${P}h`, 'f1')).toBe('v1');
  expect(await r.hincrby(`${P}h`, 'f2', 3)).toBe(5);
  expect(await r.hgetall(`${P}h`)).toEqual({ f1: 'v1', f2: 5 });
  expect(await r.hdel(`${P}h`, 'f1', 'nope')).toBe(1);
  expect(await r.sadd(`${P}set`, 'a', 'b', 'a')).toBe(2);
  expect((await r.smembers(`${P}set`)).sort()).toEqual(['a', 'b']);
  expect(await r.sismember(`${P}set`, 'b')).toBe(1);
  expect(await r.zadd(`${P}z`, { score: 2, member: 'b' }, { score: 1, member: 'a' }, { score: 3.5, member: 'c' })).toBe(3);
  expect(await r.zrange(`${P}z`, 0, -1)).toEqual(['a', 'b', 'c']);
  expect(await r.zrange(`${P}z`, 0, -1, { withScores: true })).toEqual(['a', 1, 'b', 2, 'c', 3.5]);
  expect(await r.zrange(`${P}z`, 3, 2, { byScore: true, rev: true })).toEqual(['b']);
  expect(await r.zcount(`${P}z`, '(1', '+inf')).toBe(2);
  expect(await r.zremrangebyscore(`${P}z`, 0, 1)).toBe(1);
  expect(await r.zcard(`${P}z`)).toBe(2);
  expect((await r.keys(`${P}[hz]`)).sort()).toEqual([`${P}h`, `${P}z`]);
  let cursor: string | number = 0;
  const found: string[] = [];
  do {
    const [next, keys]: [string | number, string[]] = await r.scan(cursor, { match: `${P}set`, count: 1000 });
    found.push(...keys);
    cursor = next;
  } while (String(cursor) !== '0');
  expect(found).toEqual([`${P}set`]);
  const err = await caught(r.incr(`${P}h`));
  expect(err.message).toMatch(/WRONGTYPE Operation against a key holding the wrong kind of value/);
}
