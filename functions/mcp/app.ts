// MCP area: POST /mcp, whose tools run the REST routes of the app it is mounted in.
import { createArea, type App } from '../../shared/app';
import { register, type McpInfo } from './endpoint';
import { MCP_AREA } from './options';

/** `app`: the app holding every area's routes (functions/app.ts), which tool calls run in-process. */
export function mcpArea(app: App, info: McpInfo) {
  const area = createArea(MCP_AREA);
  register(area, app, info);
  return area;
}
