// The public routes' per-client-IP limit on the paths that read data (after the isolate cache,
// which counts its hits on its own): one request costs one; a bulk check costs one per distinct
// domain (at least one), spent once its body is read: one Redis call either way.
import type { Context, MiddlewareHandler } from 'hono';
import type { Env } from '../../shared/env';
import { clientIp, ipHeaders, ipLimited, limitIp, type IpDecision } from '../../shared/limits/ip';
import { BULK_PATH } from './body-limits';

/** Static files cost nothing to serve: no limit. The bulk check spends its own cost (`spendBulk`). */
const FREE_PATHS = new Set(['/public/widget.js']);
const SPENDS_ITS_OWN = new Set([BULK_PATH]);
const decisions = new WeakMap<Request, IpDecision>();

async function spend(c: Context<Env>, cost: number, asked = cost): Promise<void> {
  const decision = await limitIp(c.var.store, clientIp(c.req.raw.headers), c.var.config.PUBLIC_RATE_LIMIT_PER_MINUTE, cost);
  decisions.set(c.req.raw, decision);
  if (!decision.success) throw ipLimited(decision, asked);
}

export function publicLimit(): MiddlewareHandler<Env> {
  return async function publicLimit(c, next) {
    if (FREE_PATHS.has(c.req.path)) return next();
    if (!SPENDS_ITS_OWN.has(c.req.path)) await spend(c, 1);
    await next();
    const decision = decisions.get(c.req.raw);
    if (decision?.success) for (const [name, value] of Object.entries(ipHeaders(decision))) c.header(name, value);
  };
}

/** A bulk check costs one per distinct domain, and at least one. */
export async function spendBulk(c: Context<Env>, domains: number): Promise<void> {
  await spend(c, Math.max(1, domains), domains);
}
