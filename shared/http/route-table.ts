// An area's route table (functions/<area>/routes.ts): its chain options and one line per route,
// method, path and loader, in registration order. From it are built the deployed area Worker, whose
// routes load on first use (shared/http/lazy-area.ts), and the area app in the all-in-one app and the
// OpenAPI document (areaApp, shared/http/app.ts; functions/combined-app.ts).
//
// No runtime imports: a deployed Worker's router holds its table at startup (docs/PERFORMANCE.md).
import type { Context } from 'hono';
import type { AreaOptions } from './chain';
import type { App } from './app';
import type { Env } from '../env';

export type Method = 'GET' | 'POST' | 'DELETE';

/**
 * `[method, path, load, plain?]`: the path in Hono syntax (`:alpha_2`), as the route module registers it
 * (its contract's `{alpha_2}`). Lines whose route one module registers together share one loader
 * (public's widget.js and widget-demo): the module is loaded and registered once.
 *
 * `plain`, in a keyless area only: the route's handler alone, for a route that validates nothing and
 * reads no data (public's widget.js). The deployed Worker answers it with that handler in the area's
 * chain with client-free services (shared/http/keyless-area.ts), without the route module's schemas and
 * the database and Redis clients; the route module registers the same handler with its contract.
 */
export type RouteLine = readonly [method: Method, path: string, load: Loader, plain?: PlainLoader];

/** A plain route's handler (RouteLine). */
export type PlainHandler = (c: Context<Env>) => Response | Promise<Response>;

/** Loads a plain route's handler: `() => import('./script').then((m) => m.serveScript)`. */
export type PlainLoader = () => Promise<PlainHandler>;

/** Loads a route module: `() => import('./routes/get-region')` (functions/<area>/routes/). */
export type Loader = () => Promise<RouteModule>;

export interface RouteTable {
  /**
   * The area's chain options (functions/<area>/options.ts), or their loader when the chain holds
   * the area's own middleware, whose code must not run at the Worker's startup (public's edge and
   * per-IP limit); the loader builds them afresh for each area app, as the chain's state is per app.
   */
  options: AreaOptions | (() => Promise<AreaOptions>);
  routes: readonly RouteLine[];
  /**
   * Geo's mirror: every route served under each of these versions' prefixes (`v1` -> /v1 + path), the
   * whole table under the first, then under the next (functions/geo/routes.ts).
   */
  mirror?: readonly string[];
}

/** What a route module is registered with besides its area app. */
export interface Mount {
  /** The mirror's version (`v1`, `v2`; its operationIds name it), else ''. */
  version: string;
}

/** A route module: registers its route(s) on an area app. */
export interface RouteModule {
  register(app: App, mount: Mount): void;
}

/** The table's routes as registered, mirror expanded, in the area app's registration order. */
export function routesOf(table: RouteTable): RouteLine[] {
  const prefixes = table.mirror?.map((version) => `/${version}`) ?? [''];
  return prefixes.flatMap((prefix) => table.routes.map(([method, path, load, plain]): RouteLine => [method, prefix + path, load, plain]));
}

/** The table's chain options, loaded if need be. */
export function optionsOf(table: RouteTable): Promise<AreaOptions> {
  return typeof table.options === 'function' ? table.options() : Promise.resolve(table.options);
}

/** Each of the table's loaders once, in order of first use. */
export function loadersOf(table: RouteTable): Loader[] {
  return [...new Set(table.routes.map(([, , load]) => load))];
}

/** Every route module of the table, loaded: the all-in-one app registers them all (functions/combined-app.ts). */
export function loadModules(table: RouteTable): Promise<RouteModule[]> {
  return Promise.all(loadersOf(table).map((load) => load()));
}
