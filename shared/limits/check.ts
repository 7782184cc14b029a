// Rate limit and quota in one Redis round trip: the limiter's EVALSHA and the lease script's EVAL
// (shared/limits/lease.ts) are write commands, which the auto-pipelining client sends as one pipeline.
import { Ratelimit } from '@upstash/ratelimit';
import type { AuthContext } from '../auth/types';
import type { Store } from '../db/redis';
import { countAndLease, type LeaseRequest } from './lease';
import { limitLocally } from './local';
import { namespaces, redisNamespaces } from '../cache/namespaces';
import { monthlyQuota, monthOf, nextMonthStart } from './quota';

/** Denials remembered in the isolate so a hammering key costs no Redis call until reset. */
const blocked = namespaces.rateLimitBlocks.held;

export interface MinuteState {
  limit: number;
  remaining: number;
  resetMs: number;
  success: boolean;
  /** `local` while Redis is unreachable: the per-isolate fallback decided. */
  mode: 'redis' | 'local';
}

export interface MonthState {
  limit: number;
  used: number;
  resetMs: number;
  success: boolean;
}

export interface LimitState {
  minute: MinuteState;
  /** Null for keys without a project, or while Redis is unreachable. */
  month: MonthState | null;
  quotaKey: string | null;
}

/** The project's quota counter for the month of `now`; null for keys without a project. */
export function quotaKeyOf(store: Store, auth: AuthContext, now: Date): string | null {
  return auth.projectId ? store.key(redisNamespaces.quota.name, auth.projectId, monthOf(now)) : null;
}

export function limiterFor(store: Store, perMinute: number) {
  return new Ratelimit({
    redis: store.redis,
    limiter: Ratelimit.slidingWindow(perMinute, '60 s'),
    prefix: store.key(redisNamespaces.rateLimit.name),
    analytics: false,
    ephemeralCache: blocked,
    // The Redis client's own per-request timeout bounds the call; ratelimit's fail-open timeout
    // would silently allow everything, so it is off.
    timeout: 0,
  });
}

/** Hits to count in Redis in one call: this request's, plus those an isolate admitted on its own (shared/limits/edge.ts). */
export interface Hits {
  minute: number;
  month: number;
}

/** What one call answers: the state, and the lease granted (null while Redis is unreachable). */
export interface Counted {
  state: LimitState;
  lease: number | null;
}

/**
 * Counts in Redis in one pipeline: `hits.minute` through the limiter's EVALSHA (@upstash/ratelimit's
 * `rate`; with `minute: 0`, `decided` stands), and the lease script (shared/limits/lease.ts) with the
 * quota batches (the first is this call's own, `hits.month` of them; its counter is the state's
 * `used`: a batch of 0 reads it, /v1/usage) and the isolate's lease of the slack.
 */
export async function countLimits(
  store: Store,
  auth: AuthContext,
  now: Date,
  hits: Hits,
  lease: LeaseRequest,
  decided?: MinuteState,
): Promise<Counted> {
  const quota = auth.plan ? monthlyQuota(auth.plan, auth.addons) : null;
  const quotaKey = quotaKeyOf(store, auth, now);
  const resetMs = nextMonthStart(now).getTime();
  try {
    const [limited, counted] = await Promise.all([
      hits.minute > 0 ? limiterFor(store, auth.rateLimitPerMinute).limit(auth.keyId, { rate: hits.minute }) : Promise.resolve(null),
      countAndLease(store, lease, Date.now()),
    ]);
    const minute: MinuteState = limited
      ? { limit: limited.limit, remaining: Math.max(0, limited.remaining), resetMs: limited.reset, success: limited.success, mode: 'redis' }
      : decided!;
    const used = counted.used;
    return {
      state: {
        minute,
        month: quota && quotaKey ? { limit: quota.total, used, resetMs, success: used <= quota.total } : null,
        quotaKey: hits.month > 0 ? quotaKey : null,
      },
      lease: counted.lease,
    };
  } catch (err) {
    // The client's message names the commands sent (the lease script's text among them): its head is enough.
    console.error('rate limit store unavailable, using the isolate limiter', (err as Error).message.slice(0, 300));
    const local = hits.minute > 0 ? limitLocally(auth.keyId, auth.rateLimitPerMinute, now.getTime()) : null;
    return {
      state: {
        minute: local
          ? { limit: auth.rateLimitPerMinute, remaining: local.remaining, resetMs: local.reset, success: local.success, mode: 'local' }
          : decided!,
        month: null,
        // The hit travels in a batch sent again once Redis answers: refunded in the isolate (edge.ts refund).
        quotaKey: hits.month > 0 ? quotaKey : null,
      },
      lease: null,
    };
  }
}
