// The one app factory: validation hook, error handling, request-scoped services and auth are
// configured here and nowhere else.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { ExecutionContext, MiddlewareHandler } from 'hono';
import { chainHead, chainTail, type AreaOptions } from './area-chain';
import { limits } from './limits/middleware';
import { planGates } from './limits/plan-gates';
import { createClock } from './clock';
import { createDb } from './db/client';
import { readConfig, type Env } from './env';
import { onError, onNotFound } from './errors';
import { edgeAnswers } from './cache/edge-answers';
import { etag } from './etag';
import { exports } from './exports';
import { createStore } from './redis';
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

/** Builds `c.var.config/db/store/clock` for one request; no client outlives its request. */
export function services(): MiddlewareHandler<Env> {
  return async function services(c, next) {
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
 * An area's app. Middleware is bound to the area's own prefixes because the combined app mounts
 * every area at `/`, where a `*` middleware would leak into the other areas.
 */
export function createArea(options: AreaOptions): App {
  const app = createApp();
  const chain = chainHead(options, services());
  const channel = options.channel ?? 'rest';
  // etag() sits inside limits(): a 304 is counted per minute, and limits() refunds its monthly quota.
  // CSV/NDJSON exports and Data-As-Of (with data_as_of) sit inside etag(): the ETag covers what is sent.
  // Warm answers kept in the isolate come next: admitted and counted, converted by exports() when asked.
  // A read whose key changed while it ran beside its limit call runs again through this app (limits()).
  const again = (request: Request, env: object, ctx: ExecutionContext) => app.fetch(request, env, ctx);
  if (options.auth)
    chain.push(planGates(channel), limits({ spendsQuota: channel === 'rest', channel, again }), etag(), exports(), edgeAnswers());
  chain.push(...chainTail(options));
  // `${base}/*` also matches `base` itself: registering both would run the chain twice.
  for (const base of options.basePaths) app.use(`${base}/*`, ...chain);
  return app;
}
