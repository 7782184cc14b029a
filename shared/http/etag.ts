// Strong ETags and free revalidation for every keyed GET (docs/DECISIONS.md "Revalidation is free of quota").
// Runs inside the limits middleware: a matching If-None-Match still counts toward the per-minute
// limit (the limiter ran before), and the limits middleware gives the monthly quota request back
// for a free 304 (`c.var.freeRevalidation`).
//
// Only a revalidation of a representation this key was actually sent is free, or a tag learnt elsewhere
// would be a free read (docs/SECURITY.md "Quota and revalidation"): the tag a
// key is sent is bound to it, SHA-256(key id, content tag), so a tag that matches was sent to this
// key (or computed by someone who holds the exact bytes the key was served). `If-None-Match: *`
// still answers 304 when a representation exists (RFC 9110 13.1.2), but spends quota like a 200.
import type { MiddlewareHandler } from 'hono';
import type { Env } from '../env';
import { sha256Hex128 } from '../hash';

/** The strong ETag of a body: the first 128 bits of its SHA-256, in hex. */
export const strongTag = async (body: ArrayBuffer | string): Promise<string> => `"${await sha256Hex128(body)}"`;

/** The tag a key is sent for content with `contentTag`: bound to the key, so only its own tags revalidate for free. */
export const keyedTag = (keyId: string, contentTag: string) => strongTag(`${keyId}\n${contentTag}`);

/** RFC 9110 13.1.2: If-None-Match compares weakly, so `W/"x"` matches `"x"`; `*` matches any. */
export function ifNoneMatch(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((part) => part.trim().replace(/^W\//, '') === tag);
}

/** Headers a 304 keeps (RFC 9110 15.4.5): validators, caching and the limit headers. */
const KEEP_ON_304 = ['etag', 'cache-control', 'vary', 'ratelimit', 'ratelimit-policy', 'link'];

export function etag(): MiddlewareHandler<Env> {
  return async function etag(c, next) {
    await next();
    if ((c.req.method !== 'GET' && c.req.method !== 'HEAD') || c.res.status !== 200) return;
    // A push stream (shared/streams) has no end to hash: it is never revalidated.
    if (c.res.headers.get('Content-Type')?.startsWith('text/event-stream')) return;
    // A cached answer (shared/cache/response.ts) carries the tag of its exact bytes: no re-hashing.
    const content = c.res.headers.get('ETag') ?? (await strongTag(await c.res.clone().arrayBuffer()));
    const tag = await keyedTag(c.var.auth.keyId, content);
    // Keyed answers differ per key: browsers and CDNs may keep them only privately and must revalidate.
    const cacheControl = c.res.headers.get('Cache-Control') ?? 'private, no-cache';
    const header = c.req.header('If-None-Match');
    // Set before any 304: hono carries the old answer's headers over to a replacing Response.
    c.res.headers.set('ETag', tag);
    if (ifNoneMatch(header, tag)) {
      const headers = new Headers();
      c.res.headers.forEach((value, name) => {
        if (KEEP_ON_304.includes(name.toLowerCase())) headers.set(name, value);
      });
      headers.set('ETag', tag);
      headers.set('Cache-Control', cacheControl);
      c.res = new Response(null, { status: 304, headers });
      // Free only when the caller named this key's tag; `*` proves no copy was ever sent.
      if (header!.split(',').some((part) => part.trim().replace(/^W\//, '') === tag)) c.set('freeRevalidation', true);
      return;
    }
    c.res.headers.set('Cache-Control', cacheControl);
  };
}
