// Short-lived response cache of feed pages (docs/FEED.md "Caching"): keyed by the caller's effective
// scope (markets, plan categories, history, the project or key its cursors are bound to), every
// parameter and the minute of "now", kept for FEED_CACHE_SECONDS in Redis (shared by the isolates) and
// for ISOLATE_CACHE_SECONDS in this isolate (namespaces.feedPages). A page is a read, not an aggregate:
// concurrent identical misses of one isolate compute once (its flights), and no lock is taken across
// isolates (two isolates missing together each read it, like every uncached read). A hit is sent as stored
// (body, ETag), its `Link` built from the caller's own query (the stored one names the first caller's).
// Answers with markdown are never cached (large, and the spec says markdown disables caching).
import type { Context } from 'hono';
import { afterResponse } from '../../shared/http/after-response';
import { namespaces, redisNamespaces } from '../../shared/cache/namespaces';
import { noteOutcome, type CacheOutcome } from '../../shared/cache/outcome';
import { pack, respond, toCached, unpack, type CachedResponse } from '../../shared/cache/response';
import type { Env } from '../../shared/env';
import { dataAsOf } from '../../shared/http/freshness';
import { sha256Hex } from '../../shared/hash';
import { nextLink } from './page';

export const FEED_CACHE_SECONDS = redisNamespaces.feedPages.seconds;

export interface CachedAnswer {
  body: object;
  link: string | null;
}

interface Found {
  cached: CachedResponse;
  outcome: CacheOutcome;
}

declare module '../../shared/cache/namespaces' {
  interface NamespaceValues {
    feedPages: CachedResponse;
    feedPageFlights: Found;
  }
}

const { held, flights } = namespaces.feedPages;

/** The 200 answer from the cache, or built once by `build` for the identical requests of this isolate. */
export async function feedAnswer(
  c: Context<Env>,
  params: { route: string; cursor: string | null },
  minute: Date,
  markdown: boolean,
  build: () => Promise<CachedAnswer>,
): Promise<Response> {
  if (markdown) {
    const answer = await build();
    return c.json(answer.body, 200, answer.link ? { Link: answer.link } : {});
  }
  const { auth, config, store } = c.var;
  // Every answer may carry a next_cursor bound to its project (or key), first pages included: an
  // answer is cached for that project (or key) only, never served to another of the same scope.
  const owner = auth.projectId ?? auth.keyId;
  const identity = [auth.allowedCountries, auth.categories, auth.historyDays, owner, params, minute.toISOString()];
  const key = store.key(redisNamespaces.feedPages.name, redisNamespaces.feedPages.format, await sha256Hex(JSON.stringify(identity)));
  const memoryKey = `${config.UPSTASH_REDIS_REST_URL}|${key}`;
  const kept = config.ISOLATE_CACHE_SECONDS > 0 ? held.get(memoryKey) : undefined;
  const { value, joined } = kept
    ? { value: { cached: kept, outcome: 'hit' as const }, joined: false }
    : await flights.shared(memoryKey, () => lookup(c, key, memoryKey, build));
  const outcome: CacheOutcome = joined ? 'shared' : value.outcome;
  noteOutcome(c, outcome);
  return ownLink(c, respond(c, value.cached, outcome !== 'miss' && outcome !== 'bypass'));
}

const DOWN = Symbol('redis unreachable');

/** Redis's copy, or the page built here (stored after the answer); built and not kept when Redis cannot answer. */
async function lookup(c: Context<Env>, key: string, memoryKey: string, build: () => Promise<CachedAnswer>): Promise<Found> {
  const { store, config } = c.var;
  const stored = await store.text.get<string>(key).then(
    (text) => unpack(text) ?? null,
    (): typeof DOWN => DOWN,
  );
  if (stored === DOWN) return { cached: await built(c, build), outcome: 'bypass' };
  const found: Found = stored ? { cached: stored, outcome: 'hit' } : { cached: await built(c, build), outcome: 'miss' };
  const seconds = Math.min(config.ISOLATE_CACHE_SECONDS, FEED_CACHE_SECONDS);
  if (seconds > 0) held.set(memoryKey, found.cached, found.cached.text.length, seconds * 1000);
  if (!stored)
    afterResponse(
      c,
      store.redis.set(key, pack(found.cached), { ex: FEED_CACHE_SECONDS }).catch(() => undefined),
    );
  return found;
}

/** The page with the watermark, read beside it (one wave of round trips). */
async function built(c: Context<Env>, build: () => Promise<CachedAnswer>): Promise<CachedResponse> {
  const [{ body, link }, asOf] = await Promise.all([build(), dataAsOf(c.var.db, c.var.config)]);
  return toCached(body, asOf, link ? { Link: link } : undefined);
}

/**
 * The next page's `Link` from this request's URL: the stored answer's names the query of whoever
 * computed it (another key of the project may have added parameters of its own); its cursor, bound
 * to the project and scope the cache key holds, is the same for every caller.
 */
function ownLink(c: Context<Env>, res: Response): Response {
  const target = res.headers.get('Link')?.match(/<([^>]*)>/)?.[1];
  const cursor = target && new URL(target, 'https://api.invalid').searchParams.get('cursor');
  if (cursor) res.headers.set('Link', nextLink(c.req.url, cursor));
  return res;
}
