// A deployed area Worker whose routes load on first use (docs/PERFORMANCE.md). Its module scope
// holds only this router: zod, the route schemas, the database and Redis clients and the middleware
// are evaluated when a request first needs them, not at isolate startup. Each route module's
// `import()` stays in the one bundle wrangler builds; esbuild wraps it so it runs on first import.
//
// Keep this file free of runtime imports beyond `hono/tiny`: whatever it imports runs at startup.
import type { ExecutionContext } from 'hono';
import { Hono } from 'hono/tiny';

/** What a loaded part answers with: an area app holding some of the area's routes. */
export interface Fetcher {
  fetch(request: Request, env?: unknown, ctx?: ExecutionContext): Response | Promise<Response>;
}

/** `'GET /v1/geo/regions/:alpha_2'` (Hono path syntax) -> the route module's loader. */
export type RouteModules<M> = Record<string, () => Promise<M>>;

/** Memoizes a loader; a failed load is retried by the next request. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => (loading ??= load().catch((err) => {
    loading = undefined;
    throw err;
  }));
}

/**
 * `build(modules)` returns the area app with only those route modules registered (the area's
 * middleware chain included). A request matching a manifest entry runs in that route's app; any
 * other request (unknown path or method) runs in the area app with no routes, so it meets the same
 * chain (hygiene, key, limits) and the same JSON 404 as in the whole area app. Entries are matched
 * in order, like the area app's registration order.
 */
export function lazyArea<M>(build: (modules: M[]) => Promise<Fetcher>, routes: RouteModules<M>): Hono {
  const router = new Hono();
  for (const [entry, load] of Object.entries(routes)) {
    const [method, path] = entry.split(' ');
    const app = once(async () => build([await load()]));
    router.on(method, path, async (c) => (await app()).fetch(c.req.raw, c.env, c.executionCtx));
  }
  const rest = once(() => build([]));
  router.all('*', async (c) => (await rest()).fetch(c.req.raw, c.env, c.executionCtx));
  return router;
}

/** A Worker whose whole app loads on its first request (the MCP Worker: every area's routes). */
export function lazyApp(load: () => Promise<Fetcher>): Fetcher {
  const app = once(load);
  return { fetch: async (request, env, ctx) => (await app()).fetch(request, env, ctx) };
}
