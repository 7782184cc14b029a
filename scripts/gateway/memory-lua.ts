// EVAL for the in-process engine. There is no Lua interpreter: the scripts that
// @upstash/ratelimit 2.x sends (single-region fixed window, sliding window, token bucket,
// cached fixed window, reset) are recognised by their text and run as TypeScript transcriptions
// that keep Lua's semantics: numbers are doubles, numbers passed to redis.call become "%.14g"
// strings, a returned number becomes an integer by truncation, a table stops at its first nil,
// and comparing a number with a string is false (the cached fixed window script relies on it).
import { formatG, ReplyError, type Reply } from './redis-types';

/** redis.call: runs a command, raising its error as Lua does. */
export type Call = (...args: Array<string | number>) => Reply;
type Script = (call: Call, keys: string[], argv: string[]) => Reply;

/** Lua 5.1 tonumber on a string (decimal or hex, surrounding spaces allowed). */
function tonumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return Number(t);
  if (/^0x[0-9a-f]+$/i.test(t)) return parseInt(t, 16);
  return undefined;
}

/** Arithmetic coercion: Lua converts numeric strings, and raises on anything else. */
function num(v: unknown): number {
  const n = tonumber(v);
  if (n === undefined) throw new ReplyError('ERR user_script: attempt to perform arithmetic on a non-number value');
  return n;
}

const luaMod = (a: number, b: number) => a - Math.floor(a / b) * b;
/** Bulk reply -> Lua string, nil bulk -> false; integers stay numbers. */
const lua = (r: Reply): unknown => (r === null ? false : Buffer.isBuffer(r) ? r.toString('utf8') : r);

/** A Lua table returned to Redis: truncated at the first nil, numbers truncated to integers. */
function table(...items: unknown[]): Reply[] {
  const out: Reply[] = [];
  for (const it of items) {
    if (it === undefined || it === null) break;
    out.push(toReply(it));
  }
  return out;
}

function toReply(v: unknown): Reply {
  if (typeof v === 'number') return Math.trunc(v);
  if (v === false || v === undefined || v === null) return null;
  if (v === true) return 1;
  if (Array.isArray(v)) return table(...v);
  return v as Reply;
}

function effectiveLimit(call: Call, dynamicKey: string | undefined, fallback: number | undefined) {
  if (dynamicKey) {
    const v = lua(call('GET', dynamicKey));
    if (v !== false) return tonumber(v);
  }
  return fallback;
}

const fixedWindowLimit: Script = (call, k, a) => {
  const limit = effectiveLimit(call, k[1], tonumber(a[0]));
  const r = num(call('INCRBY', k[0], a[2]));
  if (r === tonumber(a[2])) call('PEXPIRE', k[0], a[1]);
  return table(r, limit);
};

const fixedWindowRemaining: Script = (call, k, a) => {
  const limit = effectiveLimit(call, k[1], tonumber(a[0]));
  const value = lua(call('GET', k[0]));
  const used = value !== false ? tonumber(value) : 0;
  return table(num(limit) - num(used), limit);
};

function weightedPrevious(call: Call, k: string[], now: string, window: string) {
  const cur = lua(call('GET', k[0]));
  const prev = lua(call('GET', k[1]));
  const pct = luaMod(num(now), num(window)) / num(window);
  return { cur: cur === false ? 0 : num(cur), prev: Math.floor((1 - pct) * (prev === false ? 0 : num(prev))) };
}

const slidingWindowLimit: Script = (call, k, a) => {
  const limit = effectiveLimit(call, k[2], tonumber(a[0]));
  const incrementBy = num(a[3]);
  const { cur, prev } = weightedPrevious(call, k, a[1], a[2]);
  if (incrementBy > 0 && prev + cur >= num(limit)) return table(-1, limit);
  const newValue = num(call('INCRBY', k[0], incrementBy));
  if (newValue === incrementBy) call('PEXPIRE', k[0], num(a[2]) * 2 + 1000);
  return table(num(limit) - (newValue + prev), limit);
};

const slidingWindowRemaining: Script = (call, k, a) => {
  const limit = effectiveLimit(call, k[2], tonumber(a[0]));
  const { cur, prev } = weightedPrevious(call, k, a[1], a[2]);
  return table(num(limit) - (prev + cur), limit);
};

const tokenBucketLimit: Script = (call, k, a) => {
  const [maxTokens, interval, refillRate, now, incrementBy] = a.slice(0, 5).map(num);
  const limit = num(effectiveLimit(call, k[1], maxTokens));
  const bucket = call('HMGET', k[0], 'refilledAt', 'tokens') as Reply[];
  let refilledAt: number, tokens: number;
  if (bucket[0] === null) [refilledAt, tokens] = [now, limit];
  else [refilledAt, tokens] = [num(lua(bucket[0])), num(lua(bucket[1]))];
  if (now >= refilledAt + interval) {
    const refills = Math.floor((now - refilledAt) / interval);
    tokens = Math.min(limit, tokens + refills * refillRate);
    refilledAt = refilledAt + refills * interval;
  }
  if (incrementBy > 0 && tokens < incrementBy) return table(-1, refilledAt + interval, limit);
  const remaining = tokens - incrementBy;
  const expireAt = Math.ceil((limit - remaining) / refillRate) * interval;
  call('HSET', k[0], 'refilledAt', refilledAt, 'tokens', remaining);
  if (expireAt > 0) call('PEXPIRE', k[0], expireAt);
  return table(remaining, refilledAt + interval, limit);
};

const tokenBucketRemaining: Script = (call, k, a) => {
  const limit = effectiveLimit(call, k[1], tonumber(a[0]));
  const bucket = call('HMGET', k[0], 'refilledAt', 'tokens') as Reply[];
  if (bucket[0] === null) return table(limit, -1, limit);
  return table(tonumber(lua(bucket[1])), tonumber(lua(bucket[0])), limit);
};

const cachedFixedWindowLimit: Script = (call, k, a) => {
  const r = num(call('INCRBY', k[0], a[1]));
  // The script compares the INCRBY number with the ARGV string: never equal in Lua, so it
  // never sets the expiry. Kept as is, to behave like Redis running the same script.
  return r;
};

const cachedFixedWindowRemaining: Script = (call, k) => {
  const value = lua(call('GET', k[0]));
  return value !== false ? toReply(value) : 0;
};

const resetKeys: Script = (call, k) => {
  const [, keys] = call('SCAN', '0', 'MATCH', k[0]) as [Reply, Reply[]];
  for (const key of keys) call('DEL', String(lua(key)));
  return null;
};

/** The edge limits' script (shared/limits/lease.ts): quota batches counted once per token, a lease of the slack. */
const edgeLease: Script = (call, k, a) => {
  const now = num(a[0]);
  const ms = num(a[1]);
  const holder = a[2];
  const floor = num(a[3]);
  const want = a[4] === '1';
  const n = num(a[9]);
  let used = -1;
  for (let i = 1; i <= n; i++) {
    const [quota, token, hits] = [k[2 * i], k[2 * i + 1], num(a[9 + i])];
    let value: number;
    if (hits !== 0 && lua(call('SET', token, '1', 'NX', 'PX', a[8])) !== false) {
      value = num(call('INCRBY', quota, hits));
      call('EXPIRE', quota, a[7]);
    } else {
      value = tonumber(lua(call('GET', quota))) ?? 0;
    }
    if (i === 1) used = value;
  }
  const share = (key: string, slack: number) => {
    let [others, holders] = [0, 1];
    const fields = (call('HGETALL', key) as Reply[]).map((f) => String(lua(f)));
    for (let i = 0; i < fields.length; i += 2) {
      const [reserved, expires] = fields[i + 1].split(':').map(Number);
      if (expires <= now) call('HDEL', key, fields[i]);
      else if (fields[i] !== holder) {
        others += reserved;
        holders++;
      }
    }
    return Math.min(Math.floor(slack / holders), slack - others);
  };
  const monthly = num(a[6]) >= 0;
  let lease = 0;
  if (want) {
    lease = share(k[0], num(a[5]));
    if (monthly) lease = Math.min(lease, share(k[1], num(a[6])));
  }
  lease = Math.max(floor, lease);
  for (const key of monthly ? [k[0], k[1]] : [k[0]]) {
    if (want || lease > 0) {
      call('HSET', key, holder, `${lease}:${now + ms}`);
      call('PEXPIRE', key, 2 * ms);
    } else call('HDEL', key, holder);
  }
  return table(used, lease);
};

/** Ordered: the first script whose markers all occur wins. */
const RECOGNISED: Array<[string[], Script]> = [
  [['-- discovery-api edge limits: quota batches counted once, a lease of the slack'], edgeLease],
  [['requestsInPreviousWindow', 'return {-1, effectiveLimit}'], slidingWindowLimit],
  [
    ['requestsInPreviousWindow', 'local usedTokens = requestsInPreviousWindow + requestsInCurrentWindow', 'effectiveLimit'],
    slidingWindowRemaining,
  ],
  [['redis.call("INCRBY", key, incrementBy)', 'return {r, effectiveLimit}'], fixedWindowLimit],
  [["local value = redis.call('GET', key)", 'return {effectiveLimit - usedTokens, effectiveLimit}'], fixedWindowRemaining],
  [['redis.call("HSET", key, "refilledAt", refilledAt, "tokens", remaining)', 'effectiveLimit'], tokenBucketLimit],
  [['return {tonumber(bucket[2]), tonumber(bucket[1]), effectiveLimit}'], tokenBucketRemaining],
  [['redis.call("INCRBY", key, incrementBy)', 'if r == incrementBy then', 'return r'], cachedFixedWindowLimit],
  [["local value = redis.call('GET', key)", 'tokens = value', 'return tokens'], cachedFixedWindowRemaining],
  [["redis.call('SCAN', cursor, 'MATCH', pattern)", "redis.call('DEL', keys[i])"], resetKeys],
];

export function recogniseScript(text: string): Script | undefined {
  const norm = text.replace(/\s+/g, ' ');
  return RECOGNISED.find(([markers]) => markers.every((m) => norm.includes(m)))?.[1];
}

/** Lua's tostring for numbers handed to redis.call. */
export function luaArg(v: string | number): string {
  return typeof v === 'number' ? (Number.isInteger(v) && Math.abs(v) < 1e15 ? String(v) : formatG(v, 14)) : v;
}
