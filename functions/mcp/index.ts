// The MCP Worker: POST /mcp. Its tools run every area's REST routes in-process, so the bundle holds
// every route (scripts/build.ts knows), but a tool call loads only its own route's module, on its
// first call (catalog.ts); /mcp itself loads on the first keyed request, not at startup, and a
// request to /mcp without a key is answered by the MCP area's chain alone (401; shared/http/lazy-area.ts).
// /openapi.json and /docs are routed to this Worker too (wrangler.toml) and served by the all-in-one
// app, loaded on their first request, so the document describes exactly the routes this bundle holds.
import { areaWorker } from '../../shared/http/lazy-area';
import { mcpRoutes } from './routes';

export default areaWorker(mcpRoutes, async () => (await import('../combined-app')).combinedApp());
