// Keyspace of the in-process Redis engine: typed entries with lazy expiry, as Redis does it
// (an expired key is gone the moment anyone looks at it).
import { ReplyError } from './redis-types';

export type Entry =
  | { type: 'string'; value: string; expiresAt?: number }
  | { type: 'hash'; value: Map<string, string>; expiresAt?: number }
  | { type: 'set'; value: Set<string>; expiresAt?: number }
  | { type: 'zset'; value: Map<string, number>; expiresAt?: number };

export const WRONGTYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value';
export const NOT_INT = 'ERR value is not an integer or out of range';
export const NOT_FLOAT = 'ERR value is not a valid float';
export const SYNTAX = 'ERR syntax error';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Redis string2ll: optional '-', no '+', no leading zeros, within int64. */
export function parseInteger(s: string, message = NOT_INT): number {
  if (!/^(0|-?[1-9]\d*)$/.test(s)) throw new ReplyError(message);
  const b = BigInt(s);
  if (b < INT64_MIN || b > INT64_MAX) throw new ReplyError(message);
  return Number(b);
}

export function parseFloatArg(s: string, message = NOT_FLOAT): number {
  const t = s.toLowerCase();
  if (t === 'inf' || t === '+inf' || t === 'infinity' || t === '+infinity') return Infinity;
  if (t === '-inf' || t === '-infinity') return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)) throw new ReplyError(message);
  return Number(s);
}

/** Redis glob (stringmatch): * ? [set] [^set] [a-z] and backslash escapes. */
export function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') re += '[\\s\\S]*';
    else if (c === '?') re += '[\\s\\S]';
    else if (c === '\\' && i + 1 < pattern.length) re += escapeRe(pattern[++i]);
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) {
        re += '\\[';
        continue;
      }
      let body = pattern.slice(i + 1, end);
      const neg = body.startsWith('^');
      if (neg) body = body.slice(1);
      re += `[${neg ? '^' : ''}${body.replace(/[\]\\]/g, '\\$&')}]`;
      i = end;
    } else re += escapeRe(c);
  }
  return new RegExp(`^${re}$`);
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

// Captured at load: the engine keeps its own clock, as a Redis server does, even when a test
// replaces Date.now to drive its clients' idea of time.
const serverClock = Date.now.bind(Date);

export class Store {
  private readonly data = new Map<string, Entry>();
  now: () => number = serverClock;

  get(key: string): Entry | undefined {
    const e = this.data.get(key);
    if (e && e.expiresAt !== undefined && e.expiresAt <= this.now()) {
      this.data.delete(key);
      return undefined;
    }
    return e;
  }

  getTyped<T extends Entry['type']>(key: string, type: T): Extract<Entry, { type: T }> | undefined {
    const e = this.get(key);
    if (e && e.type !== type) throw new ReplyError(WRONGTYPE);
    return e as Extract<Entry, { type: T }> | undefined;
  }

  /** The entry of `type` at `key`, created empty when missing. */
  ensure<T extends 'hash' | 'set' | 'zset'>(key: string, type: T): Extract<Entry, { type: T }> {
    const found = this.getTyped(key, type);
    if (found) return found;
    const value = type === 'set' ? new Set<string>() : new Map();
    const e = { type, value } as Extract<Entry, { type: T }>;
    this.data.set(key, e);
    return e;
  }

  set(key: string, e: Entry): void {
    this.data.set(key, e);
  }

  delete(key: string): boolean {
    return this.get(key) !== undefined && this.data.delete(key);
  }

  /** Collections that became empty disappear, as in Redis. */
  dropIfEmpty(key: string): void {
    const e = this.data.get(key);
    if (e && e.type !== 'string' && e.value.size === 0) this.data.delete(key);
  }

  keys(pattern = '*'): string[] {
    const re = globToRegExp(pattern);
    return [...this.data.keys()].filter((k) => this.get(k) !== undefined && re.test(k));
  }

  flush(): void {
    this.data.clear();
  }

  size(): number {
    return this.keys().length;
  }
}
