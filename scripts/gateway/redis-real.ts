// RedisBackend over a real Redis server (REDIS_URL).
//
// @upstash/ratelimit 2.x sends Lua scripts starting with "#!lua flags=allow-key-locking", an
// Upstash-only flag that Redis 7 rejects ("Unexpected flag in script shebang"). EVAL and
// SCRIPT LOAD get that flag removed; the client still uses the SHA1 of its original text, so
// EVALSHA/SCRIPT EXISTS map client SHA -> SHA of the rewritten script. An EVALSHA with an SHA we
// never saw goes to Redis unchanged and gets Redis' own NOSCRIPT error, on which the client falls
// back to EVAL (the gateway may have restarted while Redis kept its script cache).
import { RespPool, addressFromUrl } from './resp';
import { ReplyError, sha1, type RedisBackend, type Reply } from './redis-types';

const KNOWN_FLAGS = new Set(['no-writes', 'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys']);

/** The script with unknown shebang flags removed; the same string when nothing changes. */
export function rewriteShebang(script: string): string {
  const m = /^#!lua([^\n]*)/.exec(script);
  if (!m) return script;
  const flagsMatch = /(?:^|\s)flags=(\S*)/.exec(m[1]);
  if (!flagsMatch) return script;
  const flags = flagsMatch[1].split(',').filter(Boolean);
  const kept = flags.filter((f) => KNOWN_FLAGS.has(f));
  if (kept.length === flags.length) return script;
  const line = kept.length ? `#!lua flags=${kept.join(',')}` : '#!lua';
  return line + script.slice(m[0].length);
}

export class RealRedis implements RedisBackend {
  readonly kind = 'redis' as const;
  private readonly pool: RespPool;
  private readonly shaMap = new Map<string, string>(); // client SHA -> server SHA

  constructor(url: string) {
    this.pool = new RespPool(addressFromUrl(url));
  }

  /** Rewrites one command; `after` adjusts its reply (SCRIPT LOAD answers the client's SHA). */
  private translate(cmd: string[]): { cmd: string[]; after?: (r: Reply) => Reply } {
    const name = cmd[0]?.toUpperCase();
    const sub = cmd[1]?.toUpperCase();
    if (name === 'EVAL' || name === 'EVAL_RO') {
      if (cmd.length < 2) return { cmd };
      const fixed = rewriteShebang(cmd[1]);
      if (fixed !== cmd[1]) this.shaMap.set(sha1(cmd[1]), sha1(fixed));
      return { cmd: [cmd[0], fixed, ...cmd.slice(2)] };
    }
    if (name === 'EVALSHA' || name === 'EVALSHA_RO') {
      const mapped = cmd[1] && this.shaMap.get(cmd[1].toLowerCase());
      return { cmd: mapped ? [cmd[0], mapped, ...cmd.slice(2)] : cmd };
    }
    if (name === 'SCRIPT' && sub === 'LOAD' && cmd.length === 3) {
      const clientSha = sha1(cmd[2]);
      const fixed = rewriteShebang(cmd[2]);
      if (fixed === cmd[2]) return { cmd };
      this.shaMap.set(clientSha, sha1(fixed));
      return {
        cmd: [cmd[0], cmd[1], fixed],
        after: (r) => (r instanceof ReplyError ? r : clientSha),
      };
    }
    if (name === 'SCRIPT' && sub === 'EXISTS') {
      return { cmd: [...cmd.slice(0, 2), ...cmd.slice(2).map((s) => this.shaMap.get(s.toLowerCase()) ?? s)] };
    }
    return { cmd };
  }

  async exec(cmd: string[]): Promise<Reply> {
    return (await this.pipeline([cmd]))[0];
  }

  async pipeline(cmds: string[][]): Promise<Reply[]> {
    const t = cmds.map((c) => this.translate(c));
    const replies = await this.pool.send(t.map((x) => x.cmd));
    return replies.map((r, i) => (t[i].after ? t[i].after!(r) : r));
  }

  async multi(cmds: string[][]): Promise<Reply[] | ReplyError> {
    const t = cmds.map((c) => this.translate(c));
    const replies = await this.pool.send([['MULTI'], ...t.map((x) => x.cmd), ['EXEC']]);
    const exec = replies[replies.length - 1];
    if (exec instanceof ReplyError) {
      // EXECABORT: report the queuing error that caused it, as that is what the caller needs.
      const cause = replies.slice(1, -1).find((r) => r instanceof ReplyError);
      return cause instanceof ReplyError ? new ReplyError(`${exec.message}: ${cause.message}`) : exec;
    }
    if (!Array.isArray(exec)) return new ReplyError('ERR transaction aborted');
    return exec.map((r, i) => (t[i].after ? t[i].after!(r) : r));
  }

  async close(): Promise<void> {
    this.pool.close();
  }
}
