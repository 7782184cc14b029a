// Hash, set and sorted-set commands of the in-process Redis engine.
import type { CommandSpec } from './memory-commands';
import { SYNTAX, type Store, parseFloatArg, parseInteger } from './memory-store';
import { ReplyError, Status, formatG, wrongArgs, type Reply } from './redis-types';

const score = (n: number) => formatG(n, 17); // Redis 7.0 replies scores with "%.17g"

function sortedEntries(z: Map<string, number>): Array<[string, number]> {
  // Ties order by member bytes, as Redis does.
  return [...z.entries()].sort((x, y) => x[1] - y[1] || Buffer.compare(Buffer.from(x[0]), Buffer.from(y[0])));
}

/** A ZRANGEBYSCORE bound: "(1.5" exclusive, "-inf"/"+inf". */
function bound(s: string): { v: number; excl: boolean } {
  const excl = s.startsWith('(');
  return { v: parseFloatArg(excl ? s.slice(1) : s, 'ERR min or max is not a float'), excl };
}

function inRange(v: number, min: { v: number; excl: boolean }, max: { v: number; excl: boolean }): boolean {
  return (min.excl ? v > min.v : v >= min.v) && (max.excl ? v < max.v : v <= max.v);
}

function zrange(s: Store, key: string, start: string, stop: string, opts: string[]): Reply {
  let byScore = false,
    rev = false,
    withScores = false;
  let limit: [number, number] | undefined;
  for (let i = 0; i < opts.length; i++) {
    const o = opts[i].toUpperCase();
    if (o === 'BYSCORE') byScore = true;
    else if (o === 'REV') rev = true;
    else if (o === 'WITHSCORES') withScores = true;
    else if (o === 'LIMIT' && i + 2 < opts.length) limit = [parseInteger(opts[++i]), parseInteger(opts[++i])];
    else throw new ReplyError(SYNTAX);
  }
  if (limit && !byScore) {
    throw new ReplyError('ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX');
  }
  const z = s.getTyped(key, 'zset')?.value;
  if (!z) return [];
  let items = sortedEntries(z);
  if (rev) items.reverse();
  if (byScore) {
    // With REV the first bound is the max, as in Redis.
    const [lo, hi] = rev ? [bound(stop), bound(start)] : [bound(start), bound(stop)];
    items = items.filter(([, v]) => inRange(v, lo, hi));
    if (limit) items = items.slice(limit[0], limit[1] < 0 ? undefined : limit[0] + limit[1]);
  } else {
    const n = items.length;
    let a = parseInteger(start),
      b = parseInteger(stop);
    if (a < 0) a = Math.max(0, n + a);
    if (b < 0) b = n + b;
    items = a > b || a >= n ? [] : items.slice(a, Math.min(b, n - 1) + 1);
  }
  return withScores ? items.flatMap(([m, v]) => [m, score(v)]) : items.map(([m]) => m);
}

function zadd(s: Store, a: string[]): Reply {
  const [key, ...rest] = a;
  const flags = new Set<string>();
  while (rest.length && ['NX', 'XX', 'GT', 'LT', 'CH', 'INCR'].includes(rest[0].toUpperCase())) {
    flags.add(rest.shift()!.toUpperCase());
  }
  if (rest.length === 0 || rest.length % 2) throw new ReplyError(SYNTAX);
  if (flags.has('NX') && (flags.has('XX') || flags.has('GT') || flags.has('LT'))) {
    throw new ReplyError('ERR XX and NX options at the same time are not compatible');
  }
  if (flags.has('INCR') && rest.length !== 2) throw new ReplyError('ERR INCR option supports a single increment-element pair');
  const pairs: Array<[number, string]> = [];
  for (let i = 0; i < rest.length; i += 2) pairs.push([parseFloatArg(rest[i]), rest[i + 1]]);
  const z = s.ensure(key, 'zset').value;
  let added = 0,
    changed = 0;
  let last: number | null = null;
  for (const [v, m] of pairs) {
    const old = z.get(m);
    const next = flags.has('INCR') ? (old ?? 0) + v : v;
    if ((flags.has('NX') && old !== undefined) || (flags.has('XX') && old === undefined)) continue;
    if (old !== undefined && ((flags.has('GT') && next <= old) || (flags.has('LT') && next >= old))) continue;
    if (old === undefined) added++;
    else if (old !== next) changed++;
    z.set(m, next);
    last = next;
  }
  s.dropIfEmpty(key);
  if (flags.has('INCR')) return last === null ? null : score(last);
  return flags.has('CH') ? added + changed : added;
}

function hset(s: Store, a: string[]): number {
  if (a.length < 3 || a.length % 2 === 0) throw wrongArgs('hset');
  const h = s.ensure(a[0], 'hash').value;
  let added = 0;
  for (let i = 1; i < a.length; i += 2) {
    if (!h.has(a[i])) added++;
    h.set(a[i], a[i + 1]);
  }
  return added;
}

const hash = (s: Store, k: string) => s.getTyped(k, 'hash')?.value;
const set = (s: Store, k: string) => s.getTyped(k, 'set')?.value;
const zset = (s: Store, k: string) => s.getTyped(k, 'zset')?.value;

export const collectionCommands: Record<string, CommandSpec> = {
  HSET: { arity: -4, fn: hset },
  HMSET: {
    arity: -4,
    fn: (s, a) => {
      hset(s, a);
      return new Status('OK');
    },
  },
  HGET: { arity: 3, fn: (s, a) => hash(s, a[0])?.get(a[1]) ?? null },
  HMGET: { arity: -3, fn: (s, a) => a.slice(1).map((f) => hash(s, a[0])?.get(f) ?? null) },
  HGETALL: { arity: 2, fn: (s, a) => [...(hash(s, a[0]) ?? new Map<string, string>())].flat() },
  HKEYS: { arity: 2, fn: (s, a) => [...(hash(s, a[0])?.keys() ?? [])] },
  HVALS: { arity: 2, fn: (s, a) => [...(hash(s, a[0])?.values() ?? [])] },
  HLEN: { arity: 2, fn: (s, a) => hash(s, a[0])?.size ?? 0 },
  HEXISTS: { arity: 3, fn: (s, a) => (hash(s, a[0])?.has(a[1]) ? 1 : 0) },
  HDEL: {
    arity: -3,
    fn: (s, a) => {
      const h = hash(s, a[0]);
      const n = h ? a.slice(1).filter((f) => h.delete(f)).length : 0;
      s.dropIfEmpty(a[0]);
      return n;
    },
  },
  HINCRBY: {
    arity: 4,
    fn: (s, a) => {
      const by = parseInteger(a[2]);
      const h = s.ensure(a[0], 'hash').value;
      const cur = h.has(a[1]) ? parseInteger(h.get(a[1])!, 'ERR hash value is not an integer') : 0;
      const next = cur + by;
      if (!Number.isSafeInteger(next)) throw new ReplyError('ERR increment or decrement would overflow');
      h.set(a[1], String(next));
      return next;
    },
  },
  SADD: {
    arity: -3,
    fn: (s, a) => {
      const st = s.ensure(a[0], 'set').value;
      return a.slice(1).filter((m) => !st.has(m) && st.add(m)).length;
    },
  },
  SREM: {
    arity: -3,
    fn: (s, a) => {
      const st = set(s, a[0]);
      const n = st ? a.slice(1).filter((m) => st.delete(m)).length : 0;
      s.dropIfEmpty(a[0]);
      return n;
    },
  },
  SMEMBERS: { arity: 2, fn: (s, a) => [...(set(s, a[0]) ?? [])] },
  SISMEMBER: { arity: 3, fn: (s, a) => (set(s, a[0])?.has(a[1]) ? 1 : 0) },
  SCARD: { arity: 2, fn: (s, a) => set(s, a[0])?.size ?? 0 },
  ZADD: { arity: -4, fn: zadd },
  ZINCRBY: { arity: 4, fn: (s, a) => zadd(s, [a[0], 'INCR', a[1], a[2]]) },
  ZSCORE: {
    arity: 3,
    fn: (s, a) => {
      const v = zset(s, a[0])?.get(a[1]);
      return v === undefined ? null : score(v);
    },
  },
  ZCARD: { arity: 2, fn: (s, a) => zset(s, a[0])?.size ?? 0 },
  ZRANGE: { arity: -4, fn: (s, a) => zrange(s, a[0], a[1], a[2], a.slice(3)) },
  ZREVRANGE: { arity: -4, fn: (s, a) => zrange(s, a[0], a[1], a[2], ['REV', ...a.slice(3)]) },
  ZRANGEBYSCORE: { arity: -4, fn: (s, a) => zrange(s, a[0], a[1], a[2], ['BYSCORE', ...a.slice(3)]) },
  ZCOUNT: {
    arity: 4,
    fn: (s, a) => {
      const lo = bound(a[1]),
        hi = bound(a[2]);
      return [...(zset(s, a[0])?.values() ?? [])].filter((v) => inRange(v, lo, hi)).length;
    },
  },
  ZREM: {
    arity: -3,
    fn: (s, a) => {
      const z = zset(s, a[0]);
      const n = z ? a.slice(1).filter((m) => z.delete(m)).length : 0;
      s.dropIfEmpty(a[0]);
      return n;
    },
  },
  ZREMRANGEBYSCORE: {
    arity: 4,
    fn: (s, a) => {
      const z = zset(s, a[0]);
      if (!z) return 0;
      const lo = bound(a[1]),
        hi = bound(a[2]);
      let n = 0;
      for (const [m, v] of z) if (inRange(v, lo, hi) && z.delete(m)) n++;
      s.dropIfEmpty(a[0]);
      return n;
    },
  },
};
