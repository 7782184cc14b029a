// A deployed area Worker whose routes load on first use (docs/PERFORMANCE.md). Its module scope
// holds only this router: zod, the route schemas, the database and Redis clients and the middleware
// are evaluated when a request first needs them, not at isolate startup. Each route module's
// `import()` stays in the one bundle wrangler builds; esbuild wraps it so it runs on first import.
//
// A request without a key to a keyed area is answered 401 by the area's chain before any route runs,
// so it is served by the chain alone (shared/http/keyless-area.ts): no route schemas, no database client.
//
// Keep this file free of runtime imports beyond `hono/tiny`, ../auth/presented, ../once and ./route-table (no
// imports): whatever it imports runs at startup.
import type { ExecutionContext } from 'hono';
import { Hono } from 'hono/tiny';
import { presentedKey } from '../auth/presented';
import { once } from '../once';
import { optionsOf, routesOf, type Loader, type Method, type PlainLoader, type RouteTable } from './route-table';

/** What a loaded part answers with: an area app holding some of the area's routes. */
export interface Fetcher {
  fetch(request: Request, env?: unknown, ctx?: ExecutionContext): Response | Promise<Response>;
}

/** The stand-in of a route in the keyless app: the chain answers 401 before any route is reached. */
function unreachable(): never {
  throw new Error('a request without a key passed the key check of a keyed area');
}

/** The app of a plain line (route-table.ts): the keyless area's chain with client-free services, and the handler. */
const plainApp = (table: RouteTable, method: Method, path: string, plain: PlainLoader) => async (): Promise<Fetcher> => {
  const [{ plainArea }, options, handler] = await Promise.all([import('./keyless-area'), optionsOf(table), plain()]);
  return plainArea(options, method, path, handler);
};

/**
 * The deployed Worker of an area (functions/<area>/index.ts). A request matching a line of its
 * table runs in an area app holding only that line's route module (shared/http/area-app.ts), built on the
 * route's first request; any other request (unknown path or method) runs in the area app with no
 * routes, so it meets the same chain (hygiene, key, limits) and the same JSON 404 as in the whole
 * area app. Lines are matched in table order, the area app's registration order.
 *
 * A keyed area's request to a line that presents no key runs in the keyless app: the area's chain
 * up to its key check (shared/http/keyless-area.ts), where each line's path is registered with a
 * stand-in handler that is never reached (requireApiKey answers 401 first), so the request's log
 * line still names its route (shared/observability/middleware.ts). It answers exactly as the
 * route's app would: the chain before the routes decides everything a request without a key gets
 * (413, 400, the throttle's 429, 401).
 *
 * A plain line (a keyless area's route that reads nothing, route-table.ts) runs in its plain app: the
 * area's chain with client-free services, and the line's handler (shared/http/keyless-area.ts).
 *
 * `rest`: the app of the requests no line matches, instead of the area app with no routes (the MCP
 * Worker's /openapi.json and /docs: functions/mcp/index.ts).
 */
export function areaWorker(table: RouteTable, rest?: () => Promise<Fetcher>): Hono {
  const router = new Hono();
  const routes = routesOf(table);
  const build = (load?: Loader) => async (): Promise<Fetcher> => {
    const [{ areaApp }, options, modules] = await Promise.all([
      import('./area-app'),
      optionsOf(table),
      load ? load().then((m) => [m]) : [],
    ]);
    return areaApp(table, options, modules);
  };
  // One app per loader: lines whose routes one module registers share it.
  const apps = new Map<Loader, () => Promise<Fetcher>>();
  const appOf = (load: Loader) => {
    const app = apps.get(load) ?? once(build(load));
    apps.set(load, app);
    return app;
  };
  // Only a keyed area's options are given as they are (a loader holds the keyless public area's).
  const chain = typeof table.options === 'function' ? undefined : table.options;
  const keyless = chain?.auth
    ? once(async () => {
        const app = (await import('./keyless-area')).keylessArea(chain);
        for (const [method, path] of routes) app.on(method, path, unreachable);
        return app;
      })
    : undefined;
  for (const [method, path, load, plain] of routes) {
    const app = plain ? once(plainApp(table, method, path, plain)) : appOf(load);
    router.on(method, path, async (c) => {
      const target = keyless && !presentedKey(c.req) ? keyless : app;
      return (await target()).fetch(c.req.raw, c.env, c.executionCtx);
    });
  }
  const other = once(rest ?? build());
  router.all('*', async (c) => (await other()).fetch(c.req.raw, c.env, c.executionCtx));
  return router;
}

/** A Worker whose whole app loads on its first request (the all-in-one dev Worker, functions/index.ts). */
export function lazyApp(load: () => Promise<Fetcher>): Fetcher {
  const app = once(load);
  return { fetch: async (request, env, ctx) => (await app()).fetch(request, env, ctx) };
}
