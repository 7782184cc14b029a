// The public routes' per-client-IP limit on the paths that read data (after the isolate cache,
// which counts its hits on its own): one request costs one; a bulk check costs one per domain.
import type { Context, MiddlewareHandler } from 'hono';
import type { Env } from '../../shared/env';
import { clientIp, ipHeaders, ipLimited, limitIp, type IpDecision } from '../../shared/limits/ip';

/** Static files cost nothing to serve: no limit. */
const FREE_PATHS = new Set(['/public/widget.js']);
const decisions = new WeakMap<Request, IpDecision>();

async function spend(c: Context<Env>, cost: number, asked = cost): Promise<void> {
  const decision = await limitIp(c.var.store, clientIp(c.req.raw.headers), c.var.config.PUBLIC_RATE_LIMIT_PER_MINUTE, cost);
  decisions.set(c.req.raw, decision);
  if (!decision.success) throw ipLimited(decision, asked);
}

export function publicLimit(): MiddlewareHandler<Env> {
  return async function publicLimit(c, next) {
    if (FREE_PATHS.has(c.req.path)) return next();
    await spend(c, 1);
    await next();
    const decision = decisions.get(c.req.raw);
    if (decision?.success) for (const [name, value] of Object.entries(ipHeaders(decision))) c.header(name, value);
  };
}

/** A bulk check costs one per distinct domain; the request itself already paid one. */
export async function spendBulk(c: Context<Env>, domains: number): Promise<void> {
  if (domains > 1) await spend(c, domains - 1, domains);
}
