// Which door a request came through: REST, or an MCP tool call that functions/mcp runs through the
// REST route in-process. The mark travels in the inner request's env under a module-private symbol,
// which no HTTP caller can set (a header could be forged); plan gates and limits read it here.
import type { LimitState, MinuteState } from './check';

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
