// The MCP Worker: POST /mcp. Its tools run every area's REST routes in-process, so every keyed
// request runs in the all-in-one app and the bundle holds every route (scripts/build.ts knows);
// /mcp, /openapi.json and /docs are routed to it (wrangler.toml), so the document describes exactly
// the routes this bundle holds. The app loads on the isolate's first keyed request, not at startup;
// a request to /mcp without a key is answered by the MCP area's chain alone (401), without the app
// (shared/lazy-area.ts).
import { areaWorker } from '../../shared/lazy-area';
import { mcpRoutes } from './routes';

export default areaWorker(mcpRoutes, async () => (await import('../combined-app')).combinedApp());
