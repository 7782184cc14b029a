// MCP area: POST /mcp, whose tools run the REST routes of the app it is mounted in.
import { createArea, type App } from '../../shared/app';
import { MCP_BODY_MAX_BYTES, register, type McpInfo } from './endpoint';

/** `app`: the app holding every area's routes (functions/app.ts), which tool calls run in-process. */
export function mcpArea(app: App, info: McpInfo) {
  const area = createArea({ basePaths: ['/mcp'], auth: true, channel: 'mcp', bodyLimits: { '/mcp': MCP_BODY_MAX_BYTES } });
  register(area, app, info);
  return area;
}
