// A deployed area Worker whose routes load on first use (docs/PERFORMANCE.md). Its module scope
// holds only this router: zod, the route schemas, the database and Redis clients and the middleware
// are evaluated when a request first needs them, not at isolate startup. Each route module's
// `import()` stays in the one bundle wrangler builds; esbuild wraps it so it runs on first import.
//
// A request without a key to a keyed area is answered 401 by the area's chain before any route runs,
// so it is served by the chain alone (shared/keyless-area.ts): no route schemas, no database client.
//
// Keep this file free of runtime imports beyond `hono/tiny` and ./auth/presented (no imports):
// whatever it imports runs at startup.
import type { ExecutionContext } from 'hono';
import { Hono } from 'hono/tiny';
import type { AreaOptions } from './area-chain';
import { presentedKey } from './auth/presented';

/** What a loaded part answers with: an area app holding some of the area's routes. */
export interface Fetcher {
  fetch(request: Request, env?: unknown, ctx?: ExecutionContext): Response | Promise<Response>;
}

export interface LazyAreaOptions {
  /**
   * A keyed area's chain options (functions/<area>/options.ts): a request to an entry that presents
   * no key is answered by keylessArea(options), the chain up to the key check, which answers 401.
   */
  keyless?: AreaOptions;
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
 * The paths an entry's route module registers: geo's `:version{v[12]}` entries stand for the
 * route under /v1 and under /v2 (functions/geo/area.ts registers each module once per version).
 */
export function registeredPaths(path: string): string[] {
  const version = ':version{v[12]}';
  return path.includes(version) ? ['v1', 'v2'].map((v) => path.replace(version, v)) : [path];
}

/** The stand-in of a route in the keyless app: the chain answers 401 before any route is reached. */
function unreachable(): never {
  throw new Error('a request without a key passed the key check of a keyed area');
}

/**
 * `build(modules)` returns the area app with only those route modules registered (the area's
 * middleware chain included). A request matching a manifest entry runs in that route's app; any
 * other request (unknown path or method) runs in the area app with no routes, so it meets the same
 * chain (hygiene, key, limits) and the same JSON 404 as in the whole area app. Entries are matched
 * in order, like the area app's registration order.
 *
 * With `keyless`, a request to an entry that presents no key runs in the keyless app: the area's
 * chain up to its key check (shared/keyless-area.ts), where each entry's path is registered with a
 * stand-in handler that is never reached (requireApiKey answers 401 first), so the request's log
 * line still names its route (shared/observability/middleware.ts). It answers exactly as the
 * route's app would: the chain before the routes decides everything a request without a key gets
 * (413, 400, the throttle's 429, 401).
 */
export function lazyArea<M>(build: (modules: M[]) => Promise<Fetcher>, routes: RouteModules<M>, options: LazyAreaOptions = {}): Hono {
  const router = new Hono();
  const entries = Object.entries(routes).map(([entry, load]) => [...entry.split(' '), load] as [string, string, () => Promise<M>]);
  const chain = options.keyless;
  const keyless = chain
    ? once(async () => {
      const app = (await import('./keyless-area')).keylessArea(chain);
      for (const [method, path] of entries) for (const registered of registeredPaths(path)) app.on(method, registered, unreachable);
      return app;
    })
    : undefined;
  for (const [method, path, load] of entries) {
    const app = once(async () => build([await load()]));
    router.on(method, path, async (c) => {
      const target = keyless && !presentedKey(c.req) ? keyless : app;
      return (await target()).fetch(c.req.raw, c.env, c.executionCtx);
    });
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
