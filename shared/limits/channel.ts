// Which door a request came through: REST, or an MCP tool call that functions/mcp runs through the
// REST route in-process; or a read run again in-process under its key as it is now (limits()). The
// mark travels in the inner request's env under a module-private symbol, which no HTTP caller can set
// (a header could be forged); plan gates, limits and the log line read it here.
import type { LimitState, MinuteState } from './check';
import type { EdgeDecision } from './edge';

export type Channel = 'rest' | 'mcp';

const MCP_POST = Symbol('mcp-post');

/** One POST /mcp, shared by the tool calls it carries (a JSON-RPC batch may carry several). */
export class McpPost {
  /** The last successful tool call's limits, for the POST's RateLimit headers. */
  latest: LimitState | null = null;

  /** `minute`: the POST's own per-minute decision, which pays for its first tool call. */
  constructor(private minute: MinuteState | null) {}

  /** The prepaid per-minute decision, once: further calls of a batch are counted on their own. */
  takeMinute(): MinuteState | undefined {
    const minute = this.minute ?? undefined;
    this.minute = null;
    return minute;
  }

  record(state: LimitState): void {
    const used = (s: LimitState | null) => s?.month?.used ?? -1;
    if (!this.latest || used(state) >= used(this.latest)) this.latest = state;
  }
}

/** The env of a tool call's inner request: the Worker's bindings plus the POST it belongs to. */
export function mcpEnv<E extends object>(env: E, post: McpPost): E {
  return { ...env, [MCP_POST]: post };
}

export function mcpPostOf(env: unknown): McpPost | undefined {
  const post = env && typeof env === 'object' ? (env as { [MCP_POST]?: unknown })[MCP_POST] : undefined;
  return post instanceof McpPost ? post : undefined;
}

const RERUN = Symbol('rerun');

/** A read run again (shared/limits/middleware.ts): the limits decision its first run took, and its request id. */
export interface Rerun {
  decision: EdgeDecision;
  requestId: string;
}

/** The env of a read run again: the Worker's bindings plus its Rerun. The first run owns the request's log line. */
export function rerunEnv<E extends object>(env: E, rerun: Rerun): E {
  return { ...env, [RERUN]: rerun };
}

export function rerunOf(env: unknown): Rerun | undefined {
  return env && typeof env === 'object' ? (env as { [RERUN]?: Rerun })[RERUN] : undefined;
}
