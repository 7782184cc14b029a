// The one app factory: validation hook, error handling, request-scoped services and auth are
// configured here and nowhere else.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { ExecutionContext, MiddlewareHandler } from 'hono';
import { keyedChain, publicChain, type AreaOptions } from './chain';
import { createClock } from '../time/clock';
import { readConfig, type Env } from '../env';
import { onError, onNotFound } from './errors';
import { clientModules, keylessServices } from './keyless-services';
import { securityHeaders } from './security-headers';
import { validationHook } from './validation';

export type App = OpenAPIHono<Env>;

export function createApp(): App {
  const app = new OpenAPIHono<Env>({ defaultHook: validationHook });
  app.use('*', securityHeaders());
  app.onError(onError);
  app.notFound(onNotFound);
  return app;
}

/**
 * Builds `c.var.config/db/store/clock` for one request; no client outlives its request. The client
 * modules load with the first keyed request: the public routes' app loads them only when it reads.
 */
export function services(): MiddlewareHandler<Env> {
  return async function services(c, next) {
    const [{ createDb }, { createStore }] = await clientModules();
    const config = readConfig(c.env);
    c.set('config', config);
    c.set('db', createDb(config));
    c.set('store', createStore(config));
    c.set('clock', createClock(config.NOW));
    await next();
  };
}

export type { AreaOptions };

/**
 * An area's app: its chain (shared/http/chain.ts) bound to the area's own prefixes, because the combined app
 * mounts every area at `/`, where a `*` middleware would leak into the other areas.
 */
export function createArea(options: AreaOptions): App {
  const app = createApp();
  const again = (request: Request, env: object, ctx: ExecutionContext) => app.fetch(request, env, ctx);
  // A public route loads its clients when it reads, after validation (keylessServices).
  const chain = options.auth ? keyedChain(options, services(), again) : publicChain(options, keylessServices());
  // `${base}/*` also matches `base` itself: registering both would run the chain twice.
  for (const base of options.basePaths) app.use(`${base}/*`, ...chain);
  return app;
}
