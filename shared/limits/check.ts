// Rate limit and quota in one Redis round trip: the limiter's EVALSHA, the quota INCR and its
// EXPIRE are all write commands, which the auto-pipelining client sends as one pipeline.
import { Ratelimit } from '@upstash/ratelimit';
import type { AuthContext } from '../auth/types';
import type { Store } from '../redis';
import { limitLocally } from './local';
import { monthlyQuota, monthOf, nextMonthStart } from './quota';

const QUOTA_TTL_SECONDS = 40 * 24 * 3600;
/** Denials remembered in the isolate so a hammering key costs no Redis call until reset. */
const blocked = new Map<string, number>();

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
  return auth.projectId ? store.key('quota', auth.projectId, monthOf(now)) : null;
}

export function limiterFor(store: Store, perMinute: number) {
  return new Ratelimit({
    redis: store.redis,
    limiter: Ratelimit.slidingWindow(perMinute, '60 s'),
    prefix: store.key('rl'),
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

/**
 * Counts `hits` in Redis (one pipeline: the limiter's EVALSHA, the quota INCRBY and its EXPIRE) and
 * answers the state after them; INCRBY 0 reads the quota without spending it (/v1/usage). The minute decision is
 * the limiter's for all the hits at once (@upstash/ratelimit's `rate`); with `minute: 0`, `decided` stands.
 */
export async function countLimits(store: Store, auth: AuthContext, now: Date, hits: Hits, decided?: MinuteState): Promise<LimitState> {
  const quota = auth.plan ? monthlyQuota(auth.plan, auth.addons) : null;
  const quotaKey = quotaKeyOf(store, auth, now);
  const resetMs = nextMonthStart(now).getTime();
  try {
    const [limited, used] = await Promise.all([
      hits.minute > 0 ? limiterFor(store, auth.rateLimitPerMinute).limit(auth.keyId, { rate: hits.minute }) : Promise.resolve(null),
      quotaKey ? store.redis.incrby(quotaKey, hits.month) : Promise.resolve(0),
      quotaKey && hits.month > 0 ? store.redis.expire(quotaKey, QUOTA_TTL_SECONDS) : Promise.resolve(0),
    ]);
    const minute: MinuteState = limited
      ? { limit: limited.limit, remaining: Math.max(0, limited.remaining), resetMs: limited.reset, success: limited.success, mode: 'redis' }
      : decided!;
    return {
      minute,
      month: quota && quotaKey ? { limit: quota.total, used, resetMs, success: used <= quota.total } : null,
      quotaKey: hits.month > 0 ? quotaKey : null,
    };
  } catch (err) {
    console.error('rate limit store unavailable, using the isolate limiter', (err as Error).message);
    const local = hits.minute > 0 ? limitLocally(auth.keyId, auth.rateLimitPerMinute, now.getTime()) : null;
    return {
      minute: local
        ? { limit: auth.rateLimitPerMinute, remaining: local.remaining, resetMs: local.reset, success: local.success, mode: 'local' }
        : decided!,
      month: null,
      quotaKey: null,
    };
  }
}
