// EVAL for the in-process engine: the script's own text runs in a real Lua interpreter (wasmoon: Lua 5.4
// compiled to WebAssembly, from npm), with Redis' scripting API around it: KEYS and ARGV, redis.call and
// redis.pcall, redis.error_reply / status_reply, and Redis' conversions both ways (a nil bulk is false in
// Lua, a number handed to redis.call is formatted as Lua 5.1's "%.14g", a returned number becomes an
// integer by truncation, a table stops at its first nil, false is a nil reply, true is 1).
import { LuaFactory } from 'wasmoon';
import { formatG, ReplyError, Status, type Reply } from './redis-types';

/** redis.call: runs a command, throwing its ReplyError. */
export type Call = (...args: string[]) => Reply;

/** A reply as it crosses into Lua: error and status replies are Redis' {err=...} and {ok=...} tables. */
type LuaValue = string | number | false | LuaValue[] | { err: string } | { ok: string };

// Redis runs Lua 5.1: `unpack` is a global there. Errors keep Redis' shape: redis.call raises the reply's
// {err=...} table, a runtime error becomes "ERR user_script:<line>: ...".
const PRELUDE = `
unpack = unpack or table.unpack
local scripts = {}
local function command(...)
  local ok, reply = pcall(__call, ...)
  if not ok then return { err = 'ERR ' .. tostring(reply) } end
  return reply
end
redis = {
  call = function(...)
    local reply = command(...)
    if type(reply) == 'table' and reply.err ~= nil then error(reply, 0) end
    return reply
  end,
  pcall = command,
  error_reply = function(message) return { err = message } end,
  status_reply = function(message) return { ok = message } end,
}
local function toreply(v)
  if type(v) ~= 'table' then return v end
  if v.err ~= nil then return { err = tostring(v.err) } end
  if v.ok ~= nil then return { ok = tostring(v.ok) } end
  local out, i = {}, 1
  while v[i] ~= nil do out[i] = toreply(v[i]); i = i + 1 end
  return out
end
function __load(sha, text)
  local f, err = load(text, '@user_script', 't')
  if not f then return 'ERR Error compiling script (new function): ' .. tostring(err) end
  scripts[sha] = f
  return nil
end
function __run(sha, keys, argv)
  KEYS, ARGV = keys, argv
  local ok, reply = pcall(scripts[sha])
  if ok then return { toreply(reply) } end
  if type(reply) == 'table' and reply.err ~= nil then return { { err = tostring(reply.err) } } end
  return { { err = 'ERR ' .. tostring(reply) } }
end
`;

/** Lua 5.1's tostring for numbers handed to redis.call. */
export function luaArg(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 1e15 ? String(v) : formatG(v, 14);
  throw new ReplyError('ERR Lua redis lib command arguments must be strings or integers');
}

function toLua(r: Reply): LuaValue {
  if (r === null) return false;
  if (Buffer.isBuffer(r)) return r.toString('utf8');
  if (r instanceof ReplyError) return { err: r.message };
  if (r instanceof Status) return { ok: r.value };
  if (Array.isArray(r)) return r.map(toLua);
  return r;
}

function fromLua(v: unknown): Reply {
  if (v === undefined || v === null || v === false) return null;
  if (v === true) return 1;
  if (typeof v === 'number') return Math.trunc(v);
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(fromLua);
  const table = v as { err?: unknown; ok?: unknown };
  if (table.err !== undefined) return new ReplyError(String(table.err));
  if (table.ok !== undefined) return new Status(String(table.ok));
  return []; // an empty table
}

/** One interpreter per engine: scripts are compiled once (by SHA1) and run atomically, as in Redis. */
export class LuaScripts {
  private current: Call | undefined;

  private constructor(
    private readonly load: (sha: string, text: string) => string | null,
    private readonly run: (sha: string, keys: string[], argv: string[]) => unknown[],
  ) {}

  static async create(): Promise<LuaScripts> {
    const lua = await new LuaFactory().createEngine({ enableProxy: false, injectObjects: false });
    let scripts: LuaScripts | undefined;
    lua.global.set('__call', (...args: unknown[]) => {
      if (!scripts?.current) throw new Error('redis.call outside a script');
      try {
        return toLua(scripts.current(...args.map(luaArg)));
      } catch (err) {
        return { err: err instanceof Error ? err.message : String(err) };
      }
    });
    lua.doStringSync(PRELUDE);
    scripts = new LuaScripts(lua.global.get('__load'), lua.global.get('__run'));
    return scripts;
  }

  /**
   * Compiles a script under its SHA1; a syntax error is Redis' compile error. Redis 7 reads a first line
   * `#!lua flags=...` itself (its flags change nothing here): it is blanked, keeping the line numbers.
   */
  compile(sha: string, text: string): void {
    const body = text.startsWith('#!lua') ? text.replace(/^[^\n]*/, '') : text;
    const error = this.load(sha, body);
    if (error) throw new ReplyError(error);
  }

  /** Runs a compiled script; `call` runs each redis.call of it. */
  eval(sha: string, keys: string[], argv: string[], call: Call): Reply {
    this.current = call;
    try {
      return fromLua(this.run(sha, keys, argv)[0]);
    } finally {
      this.current = undefined;
    }
  }
}
