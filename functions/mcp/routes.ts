// The MCP area's route table: /mcp, whose tools run the REST routes of the app the area is mounted
// in (routes/mcp.ts). One module registers the POST and the 405 of the other two methods.
// One line per route, in registration order (shared/http/route-table.ts): its Worker (index.ts), the
// all-in-one app and the OpenAPI document are built from it.
import type { RouteTable } from '../../shared/http/route-table';
import { MCP_AREA } from './options';

const endpoint = () => import('./routes/mcp');

export const mcpRoutes: RouteTable = {
  options: MCP_AREA,
  routes: [
    ['POST', '/mcp', endpoint],
    ['GET', '/mcp', endpoint],
    ['DELETE', '/mcp', endpoint],
  ],
};
