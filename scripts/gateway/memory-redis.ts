// In-process Redis engine for `npm start` without REDIS_URL. Everything runs synchronously on
// the event loop, so each command, script and MULTI/EXEC is atomic for free (the Lua interpreter is
// loaded before the first script, outside the command).
// Tests should use a real Redis; this engine covers the commands the API uses.
import { collectionCommands } from './memory-collections';
import { stringCommands, type CommandSpec } from './memory-commands';
import { LuaScripts } from './memory-lua';
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
  private readonly scripts = new Set<string>(); // SHA1s of the scripts compiled
  private lua: LuaScripts | undefined;
  private loading: Promise<LuaScripts> | undefined;

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
      return this.compile(cmd[2]);
    }
    if (sub === 'EXISTS' && cmd.length >= 3) return cmd.slice(2).map((s) => (this.scripts.has(s.toLowerCase()) ? 1 : 0));
    if (sub === 'FLUSH') {
      this.scripts.clear();
      return new Status('OK');
    }
    throw new ReplyError(`ERR unknown subcommand or wrong number of arguments for '${cmd[1]}'. Try SCRIPT HELP.`);
  }

  /** Compiles a script once by its SHA1 (EVAL caches it, as Redis does). */
  private compile(text: string): string {
    const sha = sha1(text);
    if (this.scripts.has(sha)) return sha;
    this.interpreter().compile(sha, text);
    this.scripts.add(sha);
    return sha;
  }

  private interpreter(): LuaScripts {
    if (!this.lua) throw new ReplyError('ERR the Lua interpreter is not loaded');
    return this.lua;
  }

  private evalCommand(name: string, cmd: string[]): Reply {
    if (cmd.length < 3) throw wrongArgs(name);
    let sha = cmd[1].toLowerCase();
    if (!name.startsWith('EVALSHA')) sha = this.compile(cmd[1]);
    else if (!this.scripts.has(sha)) throw new ReplyError(NOSCRIPT);
    const numKeys = parseInteger(cmd[2], NOT_INT);
    if (numKeys < 0) throw new ReplyError("ERR Number of keys can't be negative");
    if (numKeys > cmd.length - 3) throw new ReplyError("ERR Number of keys can't be greater than number of args");
    const keys = cmd.slice(3, 3 + numKeys);
    const argv = cmd.slice(3 + numKeys);
    return this.interpreter().eval(sha, keys, argv, (...args) => this.dispatch(args));
  }

  /** Loads the interpreter before the first command that runs a script, so that the command stays atomic. */
  private async prepare(cmds: string[][]): Promise<void> {
    if (this.lua || !cmds.some((c) => SCRIPTING.has(c[0]?.toUpperCase() ?? ''))) return;
    this.loading ??= LuaScripts.create();
    this.lua = await this.loading;
  }

  async exec(cmd: string[]): Promise<Reply> {
    await this.prepare([cmd]);
    return this.run(cmd);
  }

  async pipeline(cmds: string[][]): Promise<Reply[]> {
    await this.prepare(cmds);
    return cmds.map((c) => this.run(c));
  }

  async multi(cmds: string[][]): Promise<Reply[] | ReplyError> {
    await this.prepare(cmds);
    const bad = cmds.map((c) => this.check(c)).find((e) => e !== undefined);
    if (bad) return new ReplyError(`EXECABORT Transaction discarded because of previous errors.: ${bad.message}`);
    return cmds.map((c) => this.run(c));
  }

  async close(): Promise<void> {}
}
