// Short-lived response cache of feed answers (issue 9): keyed by the caller's effective scope (markets,
// plan categories, history) and every parameter, for CACHE_TTL_SECONDS. Answers with markdown are
// never cached (large, and the spec says markdown disables caching). Redis trouble only skips the cache.
import type { Context } from 'hono';
import { digest } from '../../shared/cursor';
import type { Env } from '../../shared/env';

export const CACHE_TTL_SECONDS = 30;

export interface CachedAnswer {
  body: unknown;
  link: string | null;
}

/** The cache key of this request: scope plus parameters plus the minute of "now" the answer is for. */
export async function cacheKey(c: Context<Env>, route: string, params: Record<string, unknown>, minute: Date): Promise<string> {
  const { auth, store } = c.var;
  const scope = [auth.allowedCountries, auth.categories, auth.historyDays];
  return store.key('feed', route, await digest(JSON.stringify(scope), JSON.stringify(params), minute.toISOString()));
}

export async function readCache(c: Context<Env>, key: string): Promise<CachedAnswer | null> {
  try {
    return (await c.var.store.redis.get<CachedAnswer>(key)) ?? null;
  } catch (err) {
    console.warn('feed cache read failed', (err as Error).message);
    return null;
  }
}

export function writeCache(c: Context<Env>, key: string, answer: CachedAnswer): void {
  c.executionCtx.waitUntil(
    c.var.store.redis.set(key, answer, { ex: CACHE_TTL_SECONDS }).then(() => undefined, (err: Error) => console.warn('feed cache write failed', err.message)),
  );
}
