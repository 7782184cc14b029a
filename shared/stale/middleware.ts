// Stale beats down (docs/DECISIONS.md "Stale beats down"): each keyed GET answered 200 leaves its last good copy in
// isolate memory and in the location's Workers Cache API (`caches.default`, shared by the isolates of
// a location and kept when an isolate is recycled); while PostgreSQL is unreachable, the same key
// asking the same thing (path, query, Accept) gets that copy with `Cache-Status: ...; fwd=stale`,
// `Age` and its `Data-As-Of`, instead of the 503. A copy carries the scope it was computed for (a
// hash of the key's whole context: plan, markets, categories, history, switches) and the auth
// version seen then; it is served only to a request whose key authenticated (from the isolate's key
// cache, within its lifetime, not read before an auth version change) with that same scope: a key
// that cannot be authenticated (`entitlement_unavailable`), revoked, or narrowed since gets the 503.
// Bounds: STALE_LIMITS entries and bytes in memory, 24 h in both tiers; an oversized answer is not kept.
import type { MiddlewareHandler } from 'hono';
import { afterResponse } from '../http/after-response';
import { presentedKey } from '../auth/presented';
import type { AuthContext } from '../auth/types';
import { sha256Hex } from '../hash';
import { locationCache } from '../cache/location';
import { cacheApiNamespaces, namespaces, STALE_LIMITS, STALE_TTL_MS } from '../cache/namespaces';
import type { Env } from '../env';
import { ifNoneMatch } from '../http/etag';

export { STALE_LIMITS, STALE_TTL_MS };
/** One answer larger than this is not kept (a few of them would crowd out everything else). */
export const STALE_MAX_ANSWER_BYTES = 2 * 1024 * 1024;

interface Copy {
  body: ArrayBuffer;
  headers: [string, string][];
  storedAt: number;
  /** The hash of the key's context the answer was computed for, and the auth version seen then. */
  scope: string;
  version: number | null;
}

declare module '../cache/namespaces' {
  interface NamespaceValues {
    staleCopies: Copy;
  }
}

const copies = namespaces.staleCopies.held;
const ORIGIN = cacheApiNamespaces.staleShared.origin;
const STORED_AT = 'X-Stale-Stored-At';
const SCOPE = 'X-Stale-Scope';
const VERSION = 'X-Stale-Auth-Version';

async function fromShared(cache: Cache, id: string): Promise<Copy | undefined> {
  const hit = await cache.match(`${ORIGIN}/${id}`);
  const storedAt = Number(hit?.headers.get(STORED_AT));
  if (!hit || !(Date.now() - storedAt < STALE_TTL_MS)) return undefined;
  const version = hit.headers.get(VERSION);
  return {
    body: await hit.arrayBuffer(),
    headers: kept(hit.headers),
    storedAt,
    scope: hit.headers.get(SCOPE) ?? '',
    version: version === null ? null : Number(version),
  };
}

function toShared(cache: Cache, id: string, copy: Copy): Promise<void> {
  const headers = new Headers(copy.headers);
  headers.set(STORED_AT, String(copy.storedAt));
  headers.set(SCOPE, copy.scope);
  if (copy.version !== null) headers.set(VERSION, String(copy.version));
  headers.set('Cache-Control', `max-age=${STALE_TTL_MS / 1000}`);
  return cache.put(`${ORIGIN}/${id}`, new Response(copy.body.slice(0), { headers }));
}

/** Headers a stale copy keeps: what the body means, not per-request state (limits, request id). */
const KEEP = ['content-type', 'etag', 'link', 'data-as-of', 'vary', 'content-disposition'];

function kept(headers: Headers): [string, string][] {
  const out: [string, string][] = [];
  headers.forEach((value, name) => {
    if (KEEP.includes(name.toLowerCase())) out.push([name, value]);
  });
  return out;
}

async function identity(request: Request, auth: AuthContext): Promise<string> {
  const url = new URL(request.url);
  return sha256Hex(`${auth.keyId}\n${url.pathname}${url.search}\n${request.headers.get('accept') ?? ''}`);
}

/** Everything the key's answers depend on: the same hash means the same scope. */
const scopeOf = (auth: AuthContext) => sha256Hex(JSON.stringify(auth));

/** Whether `auth` authenticated this request as the key is now (not read before an auth version change). */
async function current(auth: AuthContext): Promise<boolean> {
  // Loaded on the 503 path only: the chain's head (a request without a key) does not carry the lookup.
  const { isOutdated } = await import('../auth/keys');
  return !isOutdated(auth);
}

export function staleIfDown(): MiddlewareHandler<Env> {
  return async function staleIfDown(c, next) {
    const keyed = c.req.method === 'GET' && presentedKey(c.req) !== undefined;
    await next();
    // The key as it authenticated this request; none when it could not be (the lookup's own 503).
    const auth = keyed ? c.get('auth') : undefined;
    if (!auth) return;
    const id = await identity(c.req.raw, auth);
    const res = c.res;
    // A push stream is never kept (it has no end); its client resumes after an outage.
    if (res.headers.get('Content-Type')?.startsWith('text/event-stream')) return;
    if (res.status === 200) {
      // Keep the copy after the answer is sent (the body is read from a clone).
      const keep = (async () => {
        const body = await res.clone().arrayBuffer();
        if (body.byteLength > STALE_MAX_ANSWER_BYTES) return;
        const { authVersionSeen } = await import('../auth/version');
        const copy = {
          body,
          headers: kept(res.headers),
          storedAt: Date.now(),
          scope: await scopeOf(auth),
          version: authVersionSeen(c.var.store),
        };
        copies.set(id, copy, body.byteLength, STALE_TTL_MS);
        const cache = locationCache();
        if (cache) await toShared(cache, id, copy);
      })().catch(() => undefined);
      await afterResponse(c, keep);
      return;
    }
    if (res.status !== 503 || !c.var.outage || !(await current(auth))) return;
    const cache = locationCache();
    const copy = copies.get(id) ?? (cache && (await fromShared(cache, id).catch(() => undefined)));
    if (!copy || copy.scope !== (await scopeOf(auth))) return;
    const age = Math.max(0, Math.floor((Date.now() - copy.storedAt) / 1000));
    const headers = new Headers(copy.headers);
    // RFC 9211: forwarded because the stored answer is not fresh, the origin answered 503, so the
    // stored answer is served; a negative ttl is how stale it is.
    headers.set('Cache-Status', `discovery-api; fwd=stale; fwd-status=503; ttl=${-age}; detail=database-unreachable`);
    headers.set('Age', String(age));
    headers.set('Cache-Control', 'private, no-cache');
    const etag = headers.get('etag');
    if (etag && ifNoneMatch(c.req.header('If-None-Match'), etag)) {
      c.res = new Response(null, { status: 304, headers });
      return;
    }
    c.res = new Response(copy.body.slice(0), { status: 200, headers });
  };
}

/** Tests: forget every stale copy (as a fresh isolate would). */
export const forgetStaleCopies = () => copies.clear();
