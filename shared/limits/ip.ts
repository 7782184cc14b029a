// Per-client-IP limit for routes that need no key (the public profile checks), decided at the edge as
// the keyed limits are (shared/limits/edge.ts): the client address is a subject of its own (a key
// without a project whose per-minute limit is PUBLIC_RATE_LIMIT_PER_MINUTE), in a table of its own.
// An isolate admits a client on its own from the state Redis last answered for it, within a grant
// leased from 10% of the limit (shared by every isolate the client reaches), and sends the hits right
// after the answer: the same overshoot bound (at most 10% over the limit across every isolate), and
// Upstash's count ends exact. A client the isolate knows nothing about, or out of grant, is decided
// by one Redis call, which the routes run beside their database read (functions/public/limit.ts).
// While Redis is unreachable the isolate limiter decides, as for keys, and its hits are owed.
import type { AuthContext } from '../auth/types';
import { coded, type ApiError } from '../http/errors';
import type { Store } from '../db/redis';
import { clientIp } from './client-ip';
import { namespaces } from '../cache/namespaces';
import type { EdgeLimits } from './edge';
import { policyHeader, rateLimitHeader } from './headers';

export { clientIp };

/**
 * This isolate's client addresses (no auth version: no key stands behind them). Loaded with the first
 * decision: the public chain's answers that need none (preflights, the widget script) evaluate
 * neither the edge limits nor @upstash/ratelimit.
 */
const clients = namespaces.edgeLimits.clients;
const table = async (): Promise<EdgeLimits> => (clients.value ??= new (await import('./edge')).EdgeLimits({ authVersion: false }));

export interface IpDecision {
  success: boolean;
  limit: number;
  remaining: number;
  resetMs: number;
  mode: 'redis' | 'local';
  /** Decided in this isolate without a Redis call on the request's path. */
  local: boolean;
}

/** The client address as the edge limits' subject: a key without a project, its limit the public one. */
export function ipSubject(ip: string, perMinute: number): AuthContext {
  return {
    keyId: `ip:${ip}`,
    keyKind: 'legacy',
    projectId: null,
    plan: null,
    allowedCountries: [],
    categories: null,
    apiEnabled: false,
    mcpEnabled: false,
    subscriptionStatus: 'active',
    historyDays: 0,
    rateLimitPerMinute: perMinute,
    addons: {},
    limitsMode: 'edge',
  };
}

/**
 * Spends `cost` requests of the client's per-minute budget (a bulk check costs one per domain).
 * `later` runs the flush of a hit decided here after the answer (ctx.waitUntil).
 */
export async function decideIp(
  store: Store,
  ip: string,
  perMinute: number,
  cost: number,
  later: (work: Promise<unknown>) => void,
): Promise<IpDecision> {
  const { state, local } = await (await table()).decide(store, ipSubject(ip, perMinute), new Date(), { charge: true, cost, later });
  const { minute } = state;
  return { success: minute.success, limit: minute.limit, remaining: minute.remaining, resetMs: minute.resetMs, mode: minute.mode, local };
}

/** Whether Redis refused this client lately (its window not turned yet): decide it before reading anything. */
export const ipRefusedLately = (store: Store, ip: string, perMinute: number) =>
  clients.value?.refusedLately(store, ipSubject(ip, perMinute)) ?? false;

const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

export function ipHeaders(decision: IpDecision, nowMs = Date.now()): Record<string, string> {
  const policy = {
    name: decision.mode === 'local' ? 'ip-minute-local' : 'ip-minute',
    quota: decision.limit,
    windowSeconds: 60,
    remaining: decision.remaining,
    resetSeconds: seconds(decision.resetMs - nowMs),
  };
  return { 'RateLimit-Policy': policyHeader([policy]), RateLimit: rateLimitHeader([policy]) };
}

export function ipLimited(decision: IpDecision, cost: number, nowMs = Date.now()): ApiError {
  const retry = String(seconds(decision.resetMs - nowMs) || 1);
  const what = cost > 1 ? `${cost} domains` : 'this request';
  return coded(
    'rate_limited',
    `Rate limit of ${decision.limit} public checks per minute per client exceeded (${what}); retry in ${retry} s.`,
    {},
    { 'Retry-After': retry, ...ipHeaders(decision, nowMs) },
  );
}
