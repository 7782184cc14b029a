// The head of every area's middleware chain: everything up to and including the key check. Kept
// apart from shared/app.ts so that the app a request without a key is answered by
// (shared/keyless-area.ts) imports neither @hono/zod-openapi nor the database client.
import type { MiddlewareHandler } from 'hono';
import { requireApiKey } from './auth/middleware';
import { bodyLimits } from './body-limits';
import type { Env } from './env';
import { freshness } from './freshness';
import { inputHygiene } from './hygiene';
import type { Channel } from './limits/channel';
import { observe } from './observability/middleware';
import { staleIfDown } from './stale/middleware';

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
  /** Body limits of this area's body-taking routes, by path (shared/body-limits.ts); 8 KiB elsewhere. */
  bodyLimits?: Record<string, number>;
}

/**
 * The chain up to the key check, with `services` (the request-scoped clients) in its place:
 * request id and log line, then (keyed areas) the stale tier, edge middleware, body limits,
 * input hygiene, services, and (keyed areas) the key check.
 */
export function chainHead(options: AreaOptions, services: MiddlewareHandler<Env>): MiddlewareHandler<Env>[] {
  // The request id and log line wrap everything; edge middleware (CORS, preflight) next; oversized bodies
  // (413, unread) and hostile URLs are refused next: before auth and any query.
  const chain: MiddlewareHandler<Env>[] = [observe(), ...(options.edge ?? []), bodyLimits(options.bodyLimits), inputHygiene(), services];
  // A keyed read that fails because the database is unreachable is answered from its last good copy.
  if (options.auth) chain.splice(1 + (options.edge?.length ?? 0), 0, staleIfDown());
  if (options.auth) chain.push(requireApiKey());
  return chain;
}

/** The end of every area's chain, after its limits: `Data-As-Of` on data answers, then the area's own `after`. */
export const chainTail = (options: AreaOptions): MiddlewareHandler<Env>[] => [freshness(), ...(options.after ?? [])];
