// The MCP area's chain options: its route table's (routes.ts), which its area apps and its Worker's app
// for requests without a key (shared/http/keyless-area.ts) share. No runtime imports: the Worker's router holds them.
import type { AreaOptions } from '../../shared/http/chain';

/** A batch of tool calls fits easily; anything larger is refused before it is read (shared/http/body-limits.ts). 256 KiB. */
export const MCP_BODY_MAX_BYTES = 256 * 1024;

export const MCP_AREA: AreaOptions = { basePaths: ['/mcp'], auth: true, channel: 'mcp', bodyLimits: { '/mcp': MCP_BODY_MAX_BYTES } };
