// Every middleware chain of the API, top to bottom, in the order a request meets it (hono runs each
// around the ones below it): a keyed route's, the part of it that a request without a key meets, and a
// public route's. createArea (shared/http/app.ts) and the apps without clients (shared/http/keyless-area.ts) bind
// them to an area's own path prefixes. Middlewares hand state to later ones only through typed context
// variables (`c.var`, shared/env.ts).
//
// What a keyed route runs after its key check loads with its first keyed request (`later`): a request
// without a key is answered 401 at the key check and evaluates none of those modules.
import type { ExecutionContext, MiddlewareHandler } from 'hono';
import { requireApiKey } from '../auth/middleware';
import { bodyLimits } from './body-limits';
import type { Env } from '../env';
import { freshness } from './freshness';
import { inputHygiene } from './hygiene';
import type { Channel } from '../limits/channel';
import { observe } from '../observability/middleware';
import { once } from '../once';
import { staleIfDown } from '../stale/middleware';

export interface AreaOptions {
  /** Path prefixes this area serves, e.g. `/v1/geo`; middleware is bound to these only. */
  basePaths: string[];
  /** Public areas need no key. */
  auth: boolean;
  /**
   * `mcp` for the MCP endpoint: its plan gate is `mcpEnabled`, and the POST spends no quota (each
   * tool call it carries spends one, as the REST request it runs).
   */
  channel?: Channel;
  /**
   * Runs before the request-scoped services and auth: answers that need no client (a public
   * area's CORS preflight and the responses its isolate already holds).
   */
  edge?: MiddlewareHandler<Env>[];
  /** Runs after the whole chain, before the routes (the public area's per-IP limit, which needs the services). */
  after?: MiddlewareHandler<Env>[];
  /** Body limits of this area's body-taking routes, by path (shared/http/body-limits.ts); 8 KiB elsewhere. */
  bodyLimits?: Record<string, number>;
}

/** The area app's own fetch: a read whose key changed while it ran beside its limit call runs again through it. */
export type Again = (request: Request, env: object, ctx: ExecutionContext) => Response | Promise<Response>;

/** A middleware whose module is evaluated on its first request; `name` is the middleware's own. */
export function later(name: string, load: () => Promise<MiddlewareHandler<Env>>): MiddlewareHandler<Env> {
  const loaded = once(load);
  const run: MiddlewareHandler<Env> = async (c, next) => (await loaded())(c, next);
  return Object.defineProperty(run, 'name', { value: name });
}

/**
 * A keyed route's chain up to its key check: all that a request without a key meets (it is answered
 * 401 there, or before: 413, 400, the 401 throttle's 429). `services` builds the request's clients.
 */
export function untilKey(o: AreaOptions, services: MiddlewareHandler<Env>): MiddlewareHandler<Env>[] {
  return [
    // The request id and the log line wrap everything.
    observe(),
    ...(o.edge ?? []),
    // A keyed read that fails because the database is unreachable is answered from its last good copy.
    staleIfDown(),
    // Oversized bodies (413, unread) and hostile URLs are refused before auth and any query.
    bodyLimits(o.bodyLimits),
    inputHygiene(),
    services,
    requireApiKey(),
  ];
}

/** A keyed route's chain (every area but public). */
export function keyedChain(o: AreaOptions, services: MiddlewareHandler<Env>, again: Again): MiddlewareHandler<Env>[] {
  const channel = o.channel ?? 'rest';
  return [
    ...untilKey(o, services),
    // The key's plan opens this door (REST or MCP) and this route.
    later('planGates', () => import('../limits/plan-gates').then((m) => m.planGates(channel))),
    // Rate limit and monthly quota; a read whose key changed while it ran beside its limit call runs again (`again`).
    later('limits', () => import('../limits/middleware').then((m) => m.limits({ spendsQuota: channel === 'rest', channel, again }))),
    // Inside limits(): a 304 is counted per minute, and limits() refunds its monthly quota.
    later('etag', () => import('./etag').then((m) => m.etag())),
    // CSV/NDJSON exports and Data-As-Of inside etag(): the ETag covers what is sent.
    later('exports', () => import('./exports').then((m) => m.exports())),
    // Warm answers kept in the isolate: admitted and counted, converted by exports() when asked.
    later('edgeAnswers', () => import('../cache/edge-answers').then((m) => m.edgeAnswers())),
    // `Data-As-Of` on data answers.
    freshness(),
    ...(o.after ?? []),
  ];
}

/** A public route's chain (no key): the per-IP limit is the area's own, in `after`. */
export function publicChain(o: AreaOptions, services: MiddlewareHandler<Env>): MiddlewareHandler<Env>[] {
  return [observe(), ...(o.edge ?? []), bodyLimits(o.bodyLimits), inputHygiene(), services, freshness(), ...(o.after ?? [])];
}
