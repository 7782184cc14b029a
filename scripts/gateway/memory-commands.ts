// String, key and server commands of the in-process Redis engine, with Redis' replies and
// error texts. Arity follows Redis: positive = exact count, negative = minimum (name included).
import { NOT_INT, SYNTAX, type Store, parseFloatArg, parseInteger } from './memory-store';
import { ReplyError, Status, type Reply } from './redis-types';

export type Handler = (s: Store, a: string[]) => Reply;
export interface CommandSpec {
  arity: number;
  fn: Handler;
}

const OK = new Status('OK');

function getString(s: Store, key: string): string | null {
  return s.getTyped(key, 'string')?.value ?? null;
}

function incrBy(s: Store, key: string, by: number): number {
  const e = s.getTyped(key, 'string');
  const cur = e ? parseInteger(e.value) : 0;
  const next = cur + by;
  if (!Number.isSafeInteger(next)) throw new ReplyError('ERR increment or decrement would overflow');
  s.set(key, { type: 'string', value: String(next), expiresAt: e?.expiresAt });
  return next;
}

/** INCRBYFLOAT output: Redis prints a long double with "%.17Lf" and trims zeros; rounding the
 *  double to 15 significant digits gives the same text for ordinary decimal inputs. */
function formatIncrFloat(n: number): string {
  const r = Number(n.toPrecision(15));
  if (Number.isInteger(r)) return BigInt(r).toString();
  const digits = Math.min(100, Math.max(0, 14 - Math.floor(Math.log10(Math.abs(r)))));
  return r.toFixed(digits).replace(/0+$/, '').replace(/\.$/, '');
}

/** EXPIRE family: `at` is the absolute deadline in ms. NX/XX/GT/LT as in Redis 7. */
function expireAt(s: Store, key: string, at: number, opts: string[]): number {
  const e = s.get(key);
  if (!e) return 0;
  const flags = new Set(opts.map((o) => o.toUpperCase()));
  for (const f of flags) if (!['NX', 'XX', 'GT', 'LT'].includes(f)) throw new ReplyError(`ERR Unsupported option ${f}`);
  const cur = e.expiresAt;
  if (flags.has('NX') && cur !== undefined) return 0;
  if (flags.has('XX') && cur === undefined) return 0;
  if (flags.has('GT') && (cur === undefined || at <= cur)) return 0;
  if (flags.has('LT') && cur !== undefined && at >= cur) return 0;
  if (at <= s.now()) s.delete(key);
  else e.expiresAt = at;
  return 1;
}

function ttl(s: Store, key: string, ms: boolean): number {
  const e = s.get(key);
  if (!e) return -2;
  if (e.expiresAt === undefined) return -1;
  const left = e.expiresAt - s.now();
  return ms ? left : Math.floor((left + 500) / 1000);
}

function set(s: Store, a: string[]): Reply {
  const [key, value, ...opts] = a;
  let nx = false,
    xx = false,
    get = false,
    keep = false;
  let at: number | undefined;
  for (let i = 0; i < opts.length; i++) {
    const o = opts[i].toUpperCase();
    if (o === 'NX') nx = true;
    else if (o === 'XX') xx = true;
    else if (o === 'GET') get = true;
    else if (o === 'KEEPTTL') keep = true;
    else if (['EX', 'PX', 'EXAT', 'PXAT'].includes(o) && i + 1 < opts.length && at === undefined) {
      const n = parseInteger(opts[++i]);
      if (n <= 0) throw new ReplyError("ERR invalid expire time in 'set' command");
      at = o === 'EX' ? s.now() + n * 1000 : o === 'PX' ? s.now() + n : o === 'EXAT' ? n * 1000 : n;
    } else throw new ReplyError(SYNTAX);
  }
  if ((nx && xx) || (keep && at !== undefined)) throw new ReplyError(SYNTAX);
  const old = s.get(key);
  const oldValue = get ? getString(s, key) : null;
  if ((nx && old) || (xx && !old)) return get ? oldValue : null;
  const expiresAt = at ?? (keep ? old?.expiresAt : undefined);
  s.set(key, { type: 'string', value, expiresAt });
  return get ? oldValue : OK;
}

export const stringCommands: Record<string, CommandSpec> = {
  PING: { arity: -1, fn: (_s, a) => (a.length ? a[0] : new Status('PONG')) },
  ECHO: { arity: 2, fn: (_s, a) => a[0] },
  GET: { arity: 2, fn: (s, a) => getString(s, a[0]) },
  SET: { arity: -3, fn: set },
  SETNX: { arity: 3, fn: (s, a) => (set(s, [a[0], a[1], 'NX']) === null ? 0 : 1) },
  SETEX: { arity: 4, fn: (s, a) => set(s, [a[0], a[2], 'EX', a[1]]) },
  PSETEX: { arity: 4, fn: (s, a) => set(s, [a[0], a[2], 'PX', a[1]]) },
  GETDEL: {
    arity: 2,
    fn: (s, a) => {
      const v = getString(s, a[0]);
      if (v !== null) s.delete(a[0]);
      return v;
    },
  },
  MGET: {
    arity: -2,
    fn: (s, a) =>
      a.map((k) => {
        const e = s.get(k);
        return e?.type === 'string' ? e.value : null;
      }),
  },
  MSET: {
    arity: -3,
    fn: (s, a) => {
      if (a.length % 2) throw new ReplyError("ERR wrong number of arguments for 'mset' command");
      for (let i = 0; i < a.length; i += 2) s.set(a[i], { type: 'string', value: a[i + 1] });
      return OK;
    },
  },
  STRLEN: { arity: 2, fn: (s, a) => Buffer.byteLength(getString(s, a[0]) ?? '') },
  INCR: { arity: 2, fn: (s, a) => incrBy(s, a[0], 1) },
  DECR: { arity: 2, fn: (s, a) => incrBy(s, a[0], -1) },
  INCRBY: { arity: 3, fn: (s, a) => incrBy(s, a[0], parseInteger(a[1])) },
  DECRBY: { arity: 3, fn: (s, a) => incrBy(s, a[0], -parseInteger(a[1])) },
  INCRBYFLOAT: {
    arity: 3,
    fn: (s, a) => {
      const e = s.getTyped(a[0], 'string');
      const cur = e ? parseFloatArg(e.value) : 0;
      const next = cur + parseFloatArg(a[1]);
      if (!Number.isFinite(next)) throw new ReplyError('ERR increment would produce NaN or Infinity');
      const value = formatIncrFloat(next);
      s.set(a[0], { type: 'string', value, expiresAt: e?.expiresAt });
      return value;
    },
  },
  DEL: { arity: -2, fn: (s, a) => a.filter((k) => s.delete(k)).length },
  UNLINK: { arity: -2, fn: (s, a) => a.filter((k) => s.delete(k)).length },
  EXISTS: { arity: -2, fn: (s, a) => a.filter((k) => s.get(k) !== undefined).length },
  TYPE: { arity: 2, fn: (s, a) => new Status(s.get(a[0])?.type ?? 'none') },
  EXPIRE: { arity: -3, fn: (s, a) => expireAt(s, a[0], s.now() + parseInteger(a[1]) * 1000, a.slice(2)) },
  PEXPIRE: { arity: -3, fn: (s, a) => expireAt(s, a[0], s.now() + parseInteger(a[1]), a.slice(2)) },
  EXPIREAT: { arity: -3, fn: (s, a) => expireAt(s, a[0], parseInteger(a[1]) * 1000, a.slice(2)) },
  PEXPIREAT: { arity: -3, fn: (s, a) => expireAt(s, a[0], parseInteger(a[1]), a.slice(2)) },
  PERSIST: {
    arity: 2,
    fn: (s, a) => {
      const e = s.get(a[0]);
      if (!e || e.expiresAt === undefined) return 0;
      delete e.expiresAt;
      return 1;
    },
  },
  TTL: { arity: 2, fn: (s, a) => ttl(s, a[0], false) },
  PTTL: { arity: 2, fn: (s, a) => ttl(s, a[0], true) },
  KEYS: { arity: 2, fn: (s, a) => s.keys(a[0]) },
  SCAN: {
    arity: -2,
    fn: (s, a) => {
      // One pass returns everything with cursor 0: allowed by SCAN's contract (COUNT is a hint).
      parseInteger(a[0], 'ERR invalid cursor');
      let pattern = '*';
      let type: string | undefined;
      for (let i = 1; i < a.length; i += 2) {
        const o = a[i].toUpperCase();
        if (i + 1 >= a.length) throw new ReplyError(SYNTAX);
        if (o === 'MATCH') pattern = a[i + 1];
        else if (o === 'COUNT') parseInteger(a[i + 1], NOT_INT);
        else if (o === 'TYPE') type = a[i + 1].toLowerCase();
        else throw new ReplyError(SYNTAX);
      }
      const keys = s.keys(pattern).filter((k) => !type || s.get(k)?.type === type);
      return ['0', keys];
    },
  },
  DBSIZE: { arity: 1, fn: (s) => s.size() },
  FLUSHDB: {
    arity: -1,
    fn: (s) => {
      s.flush();
      return OK;
    },
  },
  FLUSHALL: {
    arity: -1,
    fn: (s) => {
      s.flush();
      return OK;
    },
  },
  TIME: {
    arity: 1,
    fn: (s) => {
      const ms = s.now();
      return [String(Math.floor(ms / 1000)), String((ms % 1000) * 1000)];
    },
  },
};
