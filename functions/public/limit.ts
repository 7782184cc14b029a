// The public routes' per-client-IP limit (shared/limits/ip.ts), decided beside each route's database
// read: a fresh check costs one round trip (PostgreSQL, with the limit's Redis call in the same wave;
// none for the limit when this isolate decides it), a refused parameter (422) or an oversized body
// (413, shared/http/body-limits.ts) costs none, as neither reaches a read. One request costs one; a bulk
// check one per distinct domain (at least one). A client this isolate saw refused lately is decided
// before anything is read; a refusal drops what was read for the 429.
import type { Context, MiddlewareHandler } from 'hono';
import type { Db } from '../../shared/db/client';
import type { Env } from '../../shared/env';
import { carriesDataAsOf, dataAsOf } from '../../shared/http/freshness';
import { withClients } from '../../shared/http/keyless-services';
import { clientIp, decideIp, ipHeaders, ipLimited, ipRefusedLately } from '../../shared/limits/ip';

/** Static files cost nothing to serve: no limit. */
const FREE_PATHS: ReadonlySet<string> = new Set(['/public/widget.js']);

/**
 * The route's data read under the client's limit, once its parameters passed validation: it loads
 * the request's clients (shared/http/keyless-services.ts), then `read` runs beside the decision of `cost`
 * requests and the watermark's read (`Data-As-Of`, shared/http/freshness.ts); 429 (`asked`: what the
 * message names) when it is refused.
 */
export async function limitedRead<T>(c: Context<Env>, cost: number, read: (db: Db) => Promise<T>, asked = cost): Promise<T> {
  await withClients(c);
  const { store, config, db } = c.var;
  const ip = clientIp(c.req.raw.headers);
  const perMinute = config.PUBLIC_RATE_LIMIT_PER_MINUTE;
  const refusedLately = ipRefusedLately(store, ip, perMinute);
  const deciding = decideIp(store, ip, perMinute, Math.max(1, cost), (work) => c.executionCtx.waitUntil(work));
  const decide = async () => {
    const decision = await deciding;
    c.set('ipDecision', decision);
    if (!decision.success) throw ipLimited(decision, asked);
  };
  // The answer's `Data-As-Of`, for freshness(); a failed read leaves it to freshness's fallback.
  const asOf = async () => {
    if (carriesDataAsOf(c.req.path)) c.set('dataAsOf', await dataAsOf(db, config).catch(() => undefined));
  };
  // A client refused lately is decided before anything is read.
  if (refusedLately) await decide();
  const [decision, value] = await Promise.allSettled([refusedLately || decide(), read(db), asOf()]);
  if (decision.status === 'rejected') throw decision.reason;
  if (value.status === 'rejected') throw value.reason;
  return value.value;
}

/** The RateLimit headers of the request's decision on its answer. */
export function publicLimit(): MiddlewareHandler<Env> {
  return async function publicLimit(c, next) {
    await next();
    if (FREE_PATHS.has(c.req.path)) return;
    const decision = c.var.ipDecision;
    if (decision?.success) for (const [name, value] of Object.entries(ipHeaders(decision))) c.header(name, value);
  };
}
