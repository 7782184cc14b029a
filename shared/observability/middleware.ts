// The first middleware of every app: gives the request its id (X-Request-Id on every answer,
// errors and 304s included), counts its round trips and writes its one log line.
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Env } from '../env';
import { mcpPostOf, rerunOf } from '../limits/channel';
import { answerGone } from '../http/after-response';
import { levelOf, log } from './log';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id';
import { countTrips, settled, tripsSoFar } from './round-trips';

/**
 * The route pattern that answered (`/v1/tracking/lists/:list_id/metrics`), or null (404): the first
 * matching route answers (`/v1/entities/trending` before `/v1/entities/:entity_name`).
 */
function routeOf(c: Context): string | null {
  return matchedRoutes(c).find((r) => r.method !== 'ALL' && !r.path.endsWith('*'))?.path ?? null;
}

/** How the answer came about: the aggregate cache's outcome, a stale copy, or none. */
function cacheOf(c: Context<Env>): string {
  if (c.res.headers.get('Cache-Status')?.includes('fwd=stale')) return 'stale';
  return c.get('aggregateCache') ?? c.res.headers.get('X-Aggregate-Cache') ?? 'none';
}

export function observe(): MiddlewareHandler<Env> {
  return async function observe(c, next) {
    // The combined app runs this at `*` and again in each area's chain, and a read run again under its
    // key as it is now (shared/limits/middleware.ts) passes it again: the first one owns the request.
    const rerun = rerunOf(c.env);
    if (rerun) c.set('requestId', rerun.requestId);
    if (c.get('requestId')) return next();
    const started = Date.now();
    const requestId = requestIdOf(c.req.raw.headers);
    c.set('requestId', requestId);
    const { trips, done } = countTrips(next);
    await done;
    const counted = tripsSoFar(trips);
    try {
      c.res.headers.set(REQUEST_ID_HEADER, requestId);
    } catch {
      // Immutable headers (a response passed through from fetch): copy it once.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set(REQUEST_ID_HEADER, requestId);
    }
    const auth = c.get('auth');
    const status = c.res.status;
    // A 503 is a documented, retryable answer (computing, a dependency briefly down): worth a look, not a page.
    const level = status === 503 ? 'warn' : status >= 500 ? 'error' : 'info';
    const fields = {
      request_id: requestId,
      worker: c.env.WORKER_NAME ?? 'discovery-api',
      channel: mcpPostOf(c.env) ? 'mcp' : 'rest',
      method: c.req.method,
      route: routeOf(c),
      status,
      duration_ms: Date.now() - started,
      cache: cacheOf(c),
      round_trips: counted.sequential,
      calls: counted.calls,
      project_id: auth?.projectId ?? null,
      key_id: auth?.keyId ?? null,
    };
    // Written after the answer: an isolate's first console line held its first answer back (a deployed
    // Worker's first keyless request in workerd; docs/PERFORMANCE.md "The first request"). Without an
    // execution context (app.request) it is written at once.
    const write = () => log(levelOf(c.env.LOG_LEVEL), level, 'request', fields);
    try {
      c.executionCtx.waitUntil(answerGone().then(write));
      // Shared work the answer did not wait for (a read beside a refusal) settles for those who joined it.
      c.executionCtx.waitUntil(settled(trips));
    } catch {
      write();
    }
  };
}
