// The MCP Worker: POST /mcp. Its tools run every area's REST routes in-process, so the bundle holds
// them all (scripts/build.ts knows); /mcp, /openapi.json and /docs are routed to it (wrangler.toml),
// so the document describes exactly the routes this bundle holds. The app loads on the
// isolate's first request, not at startup (shared/lazy-area.ts).
import { lazyApp } from '../../shared/lazy-area';

export default lazyApp(async () => (await import('../app')).combinedApp());
