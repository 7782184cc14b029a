// The MCP Worker: POST /mcp. Its tools run every area's REST routes in-process, so the bundle holds
// them all (scripts/build.ts knows); only /mcp is routed to it (wrangler.toml). The app loads on the
// isolate's first request, not at startup (shared/lazy-area.ts).
import { lazyApp } from '../../shared/lazy-area';

export default lazyApp(async () => (await import('../app')).apiApp());
