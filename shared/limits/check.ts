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

/**
 * Checks the per-minute limit and, when `charge`, spends one request of the monthly quota
 * (INCRBY 0 reads it without spending, keeping the read in the same write pipeline). `decided` is a
 * per-minute decision already taken for this request (an MCP tool call carried by a POST /mcp that
 * was counted): the limiter is then not asked again.
 */
export async function checkLimits(store: Store, auth: AuthContext, now: Date, charge: boolean, decided?: MinuteState): Promise<LimitState> {
  const quota = auth.plan ? monthlyQuota(auth.plan, auth.addons) : null;
  const quotaKey = auth.projectId ? store.key('quota', auth.projectId, monthOf(now)) : null;
  const resetMs = nextMonthStart(now).getTime();
  try {
    const [limited, used] = await Promise.all([
      decided ? Promise.resolve(null) : limiterFor(store, auth.rateLimitPerMinute).limit(auth.keyId),
      quotaKey ? store.redis.incrby(quotaKey, charge ? 1 : 0) : Promise.resolve(0),
      quotaKey && charge ? store.redis.expire(quotaKey, QUOTA_TTL_SECONDS) : Promise.resolve(0),
    ]);
    const minute: MinuteState = limited
      ? { limit: limited.limit, remaining: limited.remaining, resetMs: limited.reset, success: limited.success, mode: 'redis' }
      : decided!;
    return {
      minute,
      month: quota && quotaKey ? { limit: quota.total, used, resetMs, success: used <= quota.total } : null,
      quotaKey: charge ? quotaKey : null,
    };
  } catch (err) {
    console.error('rate limit store unavailable, using the isolate limiter', (err as Error).message);
    const local = decided ? null : limitLocally(auth.keyId, auth.rateLimitPerMinute, now.getTime());
    return {
      minute: local
        ? { limit: auth.rateLimitPerMinute, remaining: local.remaining, resetMs: local.reset, success: local.success, mode: 'local' }
        : decided!,
      month: null,
      quotaKey: null,
    };
  }
}
