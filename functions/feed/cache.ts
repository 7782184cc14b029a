// Short-lived response cache of feed answers (docs/FEED.md "Caching"), through the shared single-flight aggregates:
// keyed by the caller's effective scope (markets, plan categories, history) and every parameter, for
// FEED_CACHE_SECONDS, so concurrent identical misses compute once; a hit is sent as stored (body,
// ETag), its `Link` built from the caller's own query (the stored one names the first caller's). Answers with markdown are never cached (large, and the spec says markdown disables caching).
import type { Context } from 'hono';
import { serveBuiltResponse, type BuiltKind } from '../../shared/aggregates/serve';
import type { Env } from '../../shared/env';
import { nextLink } from './page';
import { aggregateKinds } from '../../shared/cache/namespaces';

export const FEED_CACHE_SECONDS = aggregateKinds.feedAnswer.seconds;

export interface CachedAnswer {
  body: object;
  link: string | null;
}

interface FeedCacheRequest {
  scope: unknown[];
  params: { route: string; cursor: string | null };
  /** The minute of "now" the answer is for: answers are identical within a minute. */
  minute: string;
}

const FEED_ANSWER: BuiltKind<FeedCacheRequest, CachedAnswer> = {
  name: aggregateKinds.feedAnswer.name,
  ttlSeconds: FEED_CACHE_SECONDS,
  respond: ({ body, link }) => ({ body, headers: link ? { Link: link } : undefined }),
};

/** The 200 answer from the cache, or built once by `build` for every concurrent identical request. */
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
  const { auth } = c.var;
  // Every answer may carry a next_cursor bound to its project (or key), first pages included: an
  // answer is cached for that project (or key) only, never served to another of the same scope.
  const owner = auth.projectId ?? auth.keyId;
  const request: FeedCacheRequest = {
    scope: [auth.allowedCountries, auth.categories, auth.historyDays, owner],
    params,
    minute: minute.toISOString(),
  };
  return ownLink(c, await serveBuiltResponse(c, FEED_ANSWER, request, build));
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
