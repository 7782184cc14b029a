// The MCP Worker: POST /mcp. Its tools run every area's REST routes in-process, so the bundle holds
// them all (scripts/build.ts knows); /mcp, /openapi.json and /docs are routed to it (wrangler.toml),
// so the document describes exactly the routes this bundle holds. The app loads on the
// isolate's first request, not at startup (shared/lazy-area.ts).
// A POST /mcp without a key is answered by the MCP area's chain alone (401), without the app.
import { lazyApp, lazyArea } from '../../shared/lazy-area';
import { MCP_AREA } from './options';

const app = lazyApp(async () => (await import('../app')).combinedApp());

export default lazyArea(async () => app, { 'POST /mcp': async () => app }, { keyless: MCP_AREA });
