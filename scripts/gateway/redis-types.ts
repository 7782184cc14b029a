// Reply model shared by the real-Redis client (resp.ts) and the in-process engine.
// Errors are values, not exceptions, so pipelines and MULTI/EXEC can carry per-command errors.
import { createHash } from 'node:crypto';

export function sha1(text: string): string {
  return createHash('sha1').update(text, 'utf8').digest('hex');
}

/** A RESP simple string (+OK, +PONG). Kept apart from bulk strings for the REST encoding. */
export class Status {
  constructor(readonly value: string) {}
}

/** A RESP error reply (-ERR ..., -WRONGTYPE ..., -NOSCRIPT ...). */
export class ReplyError extends Error {}

/** Bulk strings: Buffer from the wire, string from the in-process engine. */
export type Reply = Buffer | string | number | null | Status | ReplyError | Reply[];

export interface RedisBackend {
  readonly kind: 'redis' | 'memory';
  exec(cmd: string[]): Promise<Reply>;
  pipeline(cmds: string[][]): Promise<Reply[]>;
  /** MULTI/EXEC: the results, or the error that aborted the whole transaction. */
  multi(cmds: string[][]): Promise<Reply[] | ReplyError>;
  close(): Promise<void>;
}

/** C printf "%.{p}g": Redis formats scores with %.17g, Lua's tostring uses %.14g. */
export function formatG(n: number, p: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const exp = Number(n.toExponential(p - 1).split('e')[1]);
  if (exp < -4 || exp >= p) {
    const [m, e] = n.toExponential(p - 1).split('e');
    const mant = m.includes('.') ? m.replace(/0+$/, '').replace(/\.$/, '') : m;
    const ev = Number(e);
    return `${mant}e${ev < 0 ? '-' : '+'}${String(Math.abs(ev)).padStart(2, '0')}`;
  }
  const s = n.toFixed(Math.max(0, p - 1 - exp));
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

export function wrongArgs(name: string): ReplyError {
  return new ReplyError(`ERR wrong number of arguments for '${name.toLowerCase()}' command`);
}
