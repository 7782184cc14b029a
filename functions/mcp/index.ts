// The MCP Worker: POST /mcp. Its tools run every area's REST routes in-process, so the bundle holds
// them all (scripts/build.ts knows); only /mcp is routed to it (wrangler.toml).
import { apiApp } from '../app';

export default apiApp();
