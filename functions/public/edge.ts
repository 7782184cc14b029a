// CORS, HTTP caching and revalidation for /public/*, run before the request-scoped services: a
// preflight, or a GET this isolate answered in the last minute, costs no SQL and (mostly) no Redis
// round trip: its rate-limit hit is decided at the edge from the isolate's state of the client and
// sent to Redis after the answer (shared/limits/ip.ts).
import type { Context, MiddlewareHandler } from 'hono';
import { namespaces, PUBLIC_ANSWER_TTL_MS } from '../../shared/cache/namespaces';
import { readConfig, type Env } from '../../shared/env';
import { ifNoneMatch, strongTag } from '../../shared/http/etag';
import { ageHeader, DATA_AS_OF, dataAsOfHeaders } from '../../shared/http/freshness';
import { keylessStore } from '../../shared/http/keyless-services';
import { clientIp, decideIp, ipHeaders, ipLimited } from '../../shared/limits/ip';

/** Data answers: browsers reuse them for a minute, shared caches for 5, then revalidate in the background. */
export const DATA_CACHE_CONTROL = 'public, max-age=60, s-maxage=300, stale-while-revalidate=600';
const CACHED_PATHS: ReadonlySet<string> = new Set(['/public/platform-profile', '/public/platform-profile/query', '/public/widget-demo']);

const CORS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag, Retry-After, RateLimit, RateLimit-Policy, Data-As-Of, Age, X-Request-Id',
};
const PREFLIGHT: Record<string, string> = {
  ...CORS,
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  // A fixed list (not an echo of Access-Control-Request-Headers), so the answer never varies.
  'Access-Control-Allow-Headers': 'Content-Type, If-None-Match',
  'Access-Control-Max-Age': '86400',
  'Cache-Control': 'public, max-age=86400',
};

interface Entry {
  body: string;
  etag: string;
  contentType: string;
  /** The answer's `Data-As-Of`, when it carries one. */
  dataAsOf: string | null;
  storedAt: number;
}

declare module '../../shared/cache/namespaces' {
  interface NamespaceValues {
    publicAnswers: Entry;
  }
}

/** Per isolate; keyed by the Redis namespace too, so deployments (and test worlds) sharing an isolate never mix. */
const memory = namespaces.publicAnswers.held;

function cacheKey(prefix: string, url: URL): string {
  const params = [...url.searchParams].sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1));
  return `${prefix}|${url.pathname}?${new URLSearchParams(params)}`;
}

function decorate(res: Response) {
  for (const [name, value] of Object.entries(CORS)) res.headers.set(name, value);
  res.headers.set('Vary', 'Accept-Encoding');
  if (!res.headers.has('Cache-Control')) res.headers.set('Cache-Control', 'no-store');
}

/** `kept`: answered from this isolate's copy, which says its `Age`. */
function answer(c: Context<Env>, entry: Entry, extra: Record<string, string>, kept: boolean): Response {
  const headers = {
    ...CORS,
    ...extra,
    ...dataAsOfHeaders(entry.dataAsOf),
    ...(kept ? ageHeader(entry.storedAt) : {}),
    ETag: entry.etag,
    'Cache-Control': DATA_CACHE_CONTROL,
    Vary: 'Accept-Encoding',
  };
  if (ifNoneMatch(c.req.header('if-none-match'), entry.etag)) return c.body(null, 304, headers);
  return c.body(entry.body, 200, { ...headers, 'Content-Type': entry.contentType });
}

export function publicEdge(): MiddlewareHandler<Env> {
  return async function publicEdge(c, next) {
    if (c.req.method === 'OPTIONS') return c.body(null, 204, PREFLIGHT);
    const cacheable = c.req.method === 'GET' && CACHED_PATHS.has(c.req.path);
    let key: string | undefined;
    if (cacheable) {
      const config = readConfig(c.env);
      // The Redis client is built only when a hit must ask or pay Redis.
      const store = keylessStore(config);
      const { prefix } = store;
      key = cacheKey(prefix, new URL(c.req.url));
      const hit = memory.get(key);
      if (hit) {
        const ip = clientIp(c.req.raw.headers);
        const perMinute = config.PUBLIC_RATE_LIMIT_PER_MINUTE;
        // Decided here from what the isolate knows of the client (its hit sent after the answer), or by
        // one Redis call for a client it knows nothing about (or out of grant).
        const decision = await decideIp(await store.full(), ip, perMinute, 1, (work) => c.executionCtx.waitUntil(work));
        if (!decision.success) {
          const err = ipLimited(decision, 1);
          return c.json({ detail: err.detail }, err.status, { ...CORS, ...err.headers, 'Cache-Control': 'no-store' });
        }
        return answer(c, hit, ipHeaders(decision), true);
      }
    }
    await next();
    decorate(c.res);
    if (key && c.res.status === 200) {
      const body = await c.res.text();
      const entry = {
        body,
        etag: await strongTag(body),
        contentType: c.res.headers.get('Content-Type') ?? 'application/json',
        dataAsOf: c.res.headers.get(DATA_AS_OF),
        storedAt: Date.now(),
      };
      memory.set(key, entry, body.length, PUBLIC_ANSWER_TTL_MS);
      const limits = Object.fromEntries(
        ['RateLimit', 'RateLimit-Policy'].flatMap((h) => (c.res.headers.has(h) ? [[h, c.res.headers.get(h)!]] : [])),
      );
      c.res = answer(c, entry, limits, false);
    }
  };
}
