// Reference reads (geo regions, cities, languages) from a short-lived cache at the data step, after
// auth, plan gates and limits: this isolate's memory first, then the Workers Cache API
// (`caches.default`, shared by the isolates of a location), then the database. A warm read costs no
// SQL. Keyed by the deployment (database, Redis namespace), the route, the caller's scope, the
// validated parameters and the minute of "now"; kept REFERENCE_CACHE_SECONDS (default 60). Identical
// reads arriving while the first is read join its answer (shared/cache/flights.ts).
import type { Context } from 'hono';
import { sha256Hex } from '../hash';
import type { Env } from '../env';
import { DATA_AS_OF, dataAsOf, dataAsOfHeaders } from '../http/freshness';
import { locationCache } from './location';
import { cacheApiNamespaces, namespaces } from './namespaces';
import { afterResponse } from '../http/after-response';
import { respondAs, toCached, type CachedResponse, type JsonAnswer } from './response';

interface Entry {
  cached: CachedResponse;
  expires: number;
  /** Computed by this request (not read from a cache). */
  computed?: boolean;
}

declare module './namespaces' {
  interface NamespaceValues {
    referenceAnswers: Entry;
  }
}

/** Identical reads in flight join the first one's answer. */
const { held: memory, flights } = namespaces.referenceAnswers;
const ORIGIN = cacheApiNamespaces.referenceShared.origin;
const ETAG = 'X-Reference-ETag';
const EXPIRES = 'X-Reference-Expires';
const STORED = 'X-Reference-Stored';

async function fromShared(cache: Cache, url: string, now: number): Promise<Entry | undefined> {
  const hit = await cache.match(url);
  const expires = Number(hit?.headers.get(EXPIRES));
  if (!hit || !(expires > now)) return undefined;
  const headers = dataAsOfHeaders(hit.headers.get(DATA_AS_OF));
  return {
    cached: { text: await hit.text(), etag: hit.headers.get(ETAG) ?? '', headers, storedAt: Number(hit.headers.get(STORED)) || now },
    expires,
  };
}

/**
 * The 200 answer of a reference read. `scope` is what the caller's key changes in the answer (e.g.
 * its countries); `params` the validated request. `build` runs the queries on a miss; its errors
 * (404, 503) are never cached. The answer is typed by what `build` returns (entries are keyed by
 * `route`, whose handler is the one builder), so the route's schema checks it.
 */
export async function referenceRead<V>(
  c: Context<Env>,
  route: string,
  scope: unknown,
  params: unknown,
  build: () => Promise<V>,
): Promise<JsonAnswer<V>> {
  const { config, clock } = c.var;
  const seconds = config.REFERENCE_CACHE_SECONDS;
  const compute = async () => {
    const [body, asOf] = await Promise.all([build(), dataAsOf(c.var.db, config)]);
    return toCached(body, asOf);
  };
  if (seconds === 0) return respondAs<V>(c, await compute(), false);
  const minute = Math.floor(clock.now().getTime() / 60_000);
  const hash = await sha256Hex(JSON.stringify([config.DATABASE_URL, config.REDIS_PREFIX, route, scope, params, minute]));
  const now = Date.now();
  const held = memory.get(hash, now);
  if (held) return respondAs<V>(c, held.cached, true);
  const { value: entry, joined } = await flights.shared(hash, async () => {
    const url = `${ORIGIN}/${hash}`;
    const cache = locationCache();
    const shared = cache && (await fromShared(cache, url, now).catch(() => undefined));
    if (shared) {
      memory.set(hash, shared, shared.cached.text.length, shared.expires - now, now);
      return shared;
    }
    const computed: Entry = { cached: await compute(), expires: now + seconds * 1000, computed: true };
    memory.set(hash, computed, computed.cached.text.length, seconds * 1000, now);
    if (cache) {
      const stored = new Response(computed.cached.text, {
        headers: {
          ...computed.cached.headers,
          'Content-Type': 'application/json',
          'Cache-Control': `max-age=${seconds}`,
          [ETAG]: computed.cached.etag,
          [EXPIRES]: String(computed.expires),
          [STORED]: String(computed.cached.storedAt),
        },
      });
      await afterResponse(
        c,
        cache.put(url, stored).catch(() => undefined),
      );
    }
    return computed;
  });
  return respondAs<V>(c, entry.cached, joined || !entry.computed);
}
