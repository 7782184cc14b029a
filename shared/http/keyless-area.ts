// The apps a deployed area answers the requests that need no client with (shared/http/lazy-area.ts):
// - a keyed area's request without a key: the area's chain up to the key check, which answers 401
//   (or, before it, 413, 400 or the 401 throttle's 429), and nothing after it;
// - a keyless area's plain route (public's widget.js, shared/http/route-table.ts): the area's whole chain
//   and the route's handler.
// Each is a plain Hono app with the same security headers, error and not-found handlers as
// createApp's, and no database or Redis client: neither needs @hono/zod-openapi and zod's route
// schemas, the Neon driver, drizzle or @upstash/redis (docs/PERFORMANCE.md, "The first request").
import type { MiddlewareHandler } from 'hono';
// hono/tiny's PatternRouter: nothing to compile before the first match (the RegExpRouter of `hono`
// builds its matcher on the first request), for the few patterns this app holds.
import { Hono } from 'hono/tiny';
import { publicChain, untilKey, type AreaOptions } from './chain';
import type { Env } from '../env';
import { onError, onNotFound } from './errors';
import { keylessServices } from './keyless-services';
import type { Method, PlainHandler } from './route-table';
import { securityHeaders } from './security-headers';

/** An app with createApp's headers and handlers, `chain` bound to the area's prefixes as createArea binds it. */
function chainApp(options: AreaOptions, chain: MiddlewareHandler<Env>[]): Hono<Env> {
  const app = new Hono<Env>();
  app.use('*', securityHeaders());
  app.onError(onError);
  app.notFound(onNotFound);
  for (const base of options.basePaths) app.use(`${base}/*`, ...chain);
  return app;
}

/** The keyed area's chain up to its key check. */
export function keylessArea(options: AreaOptions): Hono<Env> {
  if (!options.auth) throw new Error('keylessArea: the area takes no key');
  return chainApp(options, untilKey(options, keylessServices()));
}

/** A keyless area's whole chain and one plain route: its handler reads nothing, so the request gets no client. */
export function plainArea(options: AreaOptions, method: Method, path: string, handler: PlainHandler): Hono<Env> {
  if (options.auth) throw new Error('plainArea: a keyed area limits every route, which needs its clients');
  const app = chainApp(options, publicChain(options, keylessServices()));
  app.on(method, path, handler);
  return app;
}
