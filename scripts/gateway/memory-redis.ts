// In-process Redis engine for `npm start` without REDIS_URL. Everything runs synchronously on
// the event loop, so each command, script and MULTI/EXEC is atomic for free.
// Tests should use a real Redis; this engine covers the commands the API uses.
import { collectionCommands } from './memory-collections';
import { stringCommands, type CommandSpec } from './memory-commands';
import { luaArg, recogniseScript } from './memory-lua';
import { NOT_INT, Store, parseInteger } from './memory-store';
import { ReplyError, sha1, Status, wrongArgs, type RedisBackend, type Reply } from './redis-types';

const COMMANDS: Record<string, CommandSpec> = { ...stringCommands, ...collectionCommands };
const SCRIPTING = new Set(['EVAL', 'EVALSHA', 'EVAL_RO', 'EVALSHA_RO', 'SCRIPT']);
const NOSCRIPT = 'NOSCRIPT No matching script. Please use EVAL.';

function unknownCommand(cmd: string[]): ReplyError {
  const args = cmd
    .slice(1, 20)
    .map((a) => `'${a}' `)
    .join('');
  return new ReplyError(`ERR unknown command '${cmd[0]}', with args beginning with: ${args}`);
}

export class MemoryRedis implements RedisBackend {
  readonly kind = 'memory' as const;
  readonly store = new Store();
  private readonly scripts = new Map<string, string>(); // SHA1 of the client's text -> text

  /** Redis' checks made when a command is queued (unknown name, wrong arity). */
  private check(cmd: string[]): ReplyError | undefined {
    const name = cmd[0]?.toUpperCase() ?? '';
    if (SCRIPTING.has(name)) return cmd.length < 2 ? wrongArgs(name) : undefined;
    const spec = COMMANDS[name];
    if (!spec) return unknownCommand(cmd);
    const ok = spec.arity > 0 ? cmd.length === spec.arity : cmd.length >= -spec.arity;
    return ok ? undefined : wrongArgs(name);
  }

  /** Runs one command; throws ReplyError (as redis.call raises inside a script). */
  private dispatch(cmd: string[]): Reply {
    const bad = this.check(cmd);
    if (bad) throw bad;
    const name = cmd[0].toUpperCase();
    if (name === 'SCRIPT') return this.scriptCommand(cmd);
    if (SCRIPTING.has(name)) return this.evalCommand(name, cmd);
    return COMMANDS[name].fn(this.store, cmd.slice(1));
  }

  private run(cmd: string[]): Reply {
    try {
      return this.dispatch(cmd);
    } catch (err) {
      if (err instanceof ReplyError) return err;
      return new ReplyError(`ERR ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private scriptCommand(cmd: string[]): Reply {
    const sub = cmd[1].toUpperCase();
    if (sub === 'LOAD' && cmd.length === 3) {
      const sha = sha1(cmd[2]);
      if (!recogniseScript(cmd[2])) throw unsupported();
      this.scripts.set(sha, cmd[2]);
      return sha;
    }
    if (sub === 'EXISTS' && cmd.length >= 3) return cmd.slice(2).map((s) => (this.scripts.has(s.toLowerCase()) ? 1 : 0));
    if (sub === 'FLUSH') {
      this.scripts.clear();
      return new Status('OK');
    }
    throw new ReplyError(`ERR unknown subcommand or wrong number of arguments for '${cmd[1]}'. Try SCRIPT HELP.`);
  }

  private evalCommand(name: string, cmd: string[]): Reply {
    let text: string | undefined;
    if (name.startsWith('EVALSHA')) {
      text = this.scripts.get(cmd[1].toLowerCase());
      if (text === undefined) throw new ReplyError(NOSCRIPT);
    } else {
      text = cmd[1];
      this.scripts.set(sha1(text), text); // EVAL caches the script, as Redis does
    }
    if (cmd.length < 3) throw wrongArgs(name);
    const numKeys = parseInteger(cmd[2], NOT_INT);
    if (numKeys < 0) throw new ReplyError("ERR Number of keys can't be negative");
    if (numKeys > cmd.length - 3) throw new ReplyError("ERR Number of keys can't be greater than number of args");
    const script = recogniseScript(text);
    if (!script) throw unsupported();
    const keys = cmd.slice(3, 3 + numKeys);
    const argv = cmd.slice(3 + numKeys);
    return script((...args) => this.dispatch(args.map(luaArg)), keys, argv);
  }

  async exec(cmd: string[]): Promise<Reply> {
    return this.run(cmd);
  }

  async pipeline(cmds: string[][]): Promise<Reply[]> {
    return cmds.map((c) => this.run(c));
  }

  async multi(cmds: string[][]): Promise<Reply[] | ReplyError> {
    const bad = cmds.map((c) => this.check(c)).find((e) => e !== undefined);
    if (bad) return new ReplyError(`EXECABORT Transaction discarded because of previous errors.: ${bad.message}`);
    return cmds.map((c) => this.run(c));
  }

  async close(): Promise<void> {}
}

function unsupported(): ReplyError {
  return new ReplyError("ERR the gateway's in-memory Redis runs only @upstash/ratelimit's Lua scripts; set REDIS_URL to use a real Redis");
}
