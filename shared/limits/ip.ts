// Per-client-IP limit for routes that need no key (the public profile check): a sliding window of
// @upstash/ratelimit keyed by the client address, with the keyed limits' outage policy (the
// isolate limiter decides while Redis is unreachable) and their RateLimit headers.
import { coded, type ApiError } from '../errors';
import type { Store } from '../redis';
import { policyHeader, rateLimitHeader } from './headers';
import { limitLocally } from './local';
import { clientIp } from './client-ip';

export { clientIp };

/** Denials remembered in the isolate (ratelimit's ephemeral cache): a hammering client costs no Redis call. */
const blocked = new Map<string, number>();
/** The last decision per client, so a response served without asking Redis still carries headers. */
const lastKnown = new Map<string, IpDecision>();

export interface IpDecision {
  success: boolean;
  limit: number;
  remaining: number;
  resetMs: number;
  mode: 'redis' | 'local';
}

/** The limiter's key prefix; `prefix` is the store's (`''` or `ns:`). */
const ipKeyPrefix = (prefix: string) => `${prefix}rl-ip`;

/**
 * Hits this isolate allowed from its copy of a client's budget (knownState) and has not counted in
 * Redis yet. They travel with the client's next Redis call, or alone once there are FLUSH_HITS of
 * them or the oldest is FLUSH_MS old: a cached answer seldom waits for, or pays, a Redis call.
 */
const pending = new Map<string, { count: number; since: number }>();
const FLUSH_HITS = 10;
const FLUSH_MS = 5_000;

/**
 * Spends `cost` requests of the client's per-minute budget (a bulk check costs one per domain),
 * plus the hits it owes from cached answers.
 */
export async function limitIp(store: Store, ip: string, perMinute: number, cost = 1): Promise<IpDecision> {
  const key = `${ipKeyPrefix(store.prefix)}:${ip}`;
  const owed = pending.get(key)?.count ?? 0;
  pending.delete(key);
  const rate = cost + owed;
  let decision: IpDecision;
  try {
    // Built per call like the keyed limiter: its Redis client belongs to this request. Imported here:
    // the public Worker's script and cached answers evaluate the public chain without it.
    const { Ratelimit } = await import('@upstash/ratelimit');
    const limiter = new Ratelimit({
      redis: store.redis,
      limiter: Ratelimit.slidingWindow(perMinute, '60 s'),
      prefix: ipKeyPrefix(store.prefix),
      analytics: false,
      ephemeralCache: blocked,
      timeout: 0,
    });
    const r = await limiter.limit(ip, { rate });
    decision = { success: r.success, limit: r.limit, remaining: Math.max(0, r.remaining), resetMs: r.reset, mode: 'redis' };
  } catch (err) {
    console.error('rate limit store unavailable, using the isolate limiter', (err as Error).message);
    let local = limitLocally(`ip:${ip}`, perMinute);
    for (let i = 1; i < rate && local.success; i++) local = limitLocally(`ip:${ip}`, perMinute);
    decision = { success: local.success, limit: perMinute, remaining: local.remaining, resetMs: local.reset, mode: 'local' };
  }
  remember(key, decision);
  return decision;
}

/** True when the client's uncounted hits should go to Redis now (after the response). */
export function flushDue(prefix: string, ip: string, nowMs = Date.now()): boolean {
  const owed = pending.get(`${ipKeyPrefix(prefix)}:${ip}`);
  return owed !== undefined && (owed.count >= FLUSH_HITS || nowMs - owed.since >= FLUSH_MS);
}

/** Counts the client's uncounted hits in Redis; a denial blocks its next requests in this isolate. */
export async function flushIp(store: Store, ip: string, perMinute: number): Promise<void> {
  if (pending.has(`${ipKeyPrefix(store.prefix)}:${ip}`)) await limitIp(store, ip, perMinute, 0);
}

function remember(key: string, decision: IpDecision) {
  lastKnown.delete(key);
  lastKnown.set(key, decision);
  if (lastKnown.size > 10_000) lastKnown.delete(lastKnown.keys().next().value!);
}

/**
 * What is known about the client without a Redis call: blocked until a time (a denial this isolate
 * saw), or allowed because its last decision left budget (that one more request is then spent
 * here and owed to Redis, see `pending`). Undefined when only Redis can tell (a client this
 * isolate has not seen, or one with no budget left by its last decision).
 */
export function knownState(prefix: string, ip: string, perMinute: number, nowMs = Date.now()): IpDecision | undefined {
  const key = `${ipKeyPrefix(prefix)}:${ip}`;
  const until = blocked.get(key);
  if (until !== undefined && until > nowMs) {
    return { success: false, limit: perMinute, remaining: 0, resetMs: until, mode: 'redis' };
  }
  const last = lastKnown.get(key);
  if (!last?.success || last.remaining < 1 || last.resetMs <= nowMs || last.limit !== perMinute) return undefined;
  const next = { ...last, remaining: last.remaining - 1 };
  remember(key, next);
  const owed = pending.get(key);
  pending.set(key, { count: (owed?.count ?? 0) + 1, since: owed?.since ?? nowMs });
  if (pending.size > 10_000) pending.delete(pending.keys().next().value!);
  return next;
}

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
