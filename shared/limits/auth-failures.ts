// Per-client-IP throttling of 401s (docs/SECURITY.md "Keys"): random keys each cost a key lookup, and their
// negative cache entries could push valid keys out. After AUTH_FAILURES_PER_MINUTE 401s in a minute
// from one address, its requests answer 429 + Retry-After before any key lookup. The count is a
// sliding window of @upstash/ratelimit in Redis (the per-IP limiter's pattern, shared/limits/ip.ts),
// spent only by 401s, after the answer; the block is remembered in the isolate, so a valid key pays
// nothing and a blocked client costs neither a lookup nor a Redis call.
import { answerGone } from '../http/after-response';
import { coded, type ApiError } from '../http/errors';
import type { Store } from '../db/redis';
import { limitLocally } from './local';
import { namespaces, redisNamespaces } from '../cache/namespaces';

/** 401s one client address may cause per minute before it is answered 429 without a key lookup. */
export const AUTH_FAILURES_PER_MINUTE = 20;

/** Client (store prefix + address) -> blocked until (epoch ms), in this isolate (at most 10,000: past it the oldest goes). */
const { held: blockedUntil, windows: ephemeral } = namespaces.authFailures;

const prefixOf = (store: Store) => `${store.prefix}${redisNamespaces.authFailures.name}`;
const idOf = (store: Store, ip: string) => `${prefixOf(store)}:${ip}`;

/**
 * Requests without CF-Connecting-IP (clientIp `unknown`) are not throttled: behind Cloudflare every
 * request carries it (`npm start` sets it too); only tests calling the Worker directly lack it.
 */
const throttled = (ip: string) => ip !== 'unknown';

/** The 429 for a client blocked in this isolate, or null (checked before any key lookup). */
export function authFailuresBlocked(store: Store, ip: string, nowMs = Date.now()): ApiError | null {
  if (!throttled(ip)) return null;
  const until = blockedUntil.get(idOf(store, ip));
  if (until === undefined) return null;
  if (until <= nowMs) {
    blockedUntil.delete(idOf(store, ip));
    return null;
  }
  const retry = String(Math.max(1, Math.ceil((until - nowMs) / 1000)));
  return coded('rate_limited', `Too many invalid API keys from this address; retry in ${retry} s.`, {}, { 'Retry-After': retry });
}

/** Counts one 401 of the client (after the answer); once its budget is spent, blocks it in this isolate. */
export async function countAuthFailure(store: Store, ip: string): Promise<void> {
  if (!throttled(ip)) return;
  let spent: { success: boolean; remaining: number; reset: number };
  // After the answer has gone: the 401 itself evaluates neither the limiter's module nor its script setup.
  await answerGone();
  try {
    const { Ratelimit } = await import('@upstash/ratelimit');
    const { redis } = store.full ? await store.full() : store;
    const limiter = new Ratelimit({
      redis,
      limiter: Ratelimit.slidingWindow(AUTH_FAILURES_PER_MINUTE, '60 s'),
      prefix: prefixOf(store),
      analytics: false,
      ephemeralCache: ephemeral,
      timeout: 0,
    });
    spent = await limiter.limit(ip);
  } catch {
    // Redis unreachable: this isolate's count, as the other limiters do in an outage.
    spent = limitLocally(`401:${idOf(store, ip)}`, AUTH_FAILURES_PER_MINUTE);
  }
  if (!spent.success || spent.remaining <= 0) {
    blockedUntil.set(idOf(store, ip), Math.max(spent.reset, Date.now() + 1_000));
  }
}
