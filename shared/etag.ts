// Strong ETags and free revalidation for every keyed GET (DESIGN.md: revalidation is free of quota).
// Runs inside the limits middleware: a matching If-None-Match still counts toward the per-minute
// limit (the limiter ran before), and the limits middleware gives the monthly quota request back
// when it sees the 304.
import type { MiddlewareHandler } from 'hono';
import type { Env } from './env';

/** The strong ETag of a body: the first 128 bits of its SHA-256, in hex. */
export async function strongTag(body: ArrayBuffer | string): Promise<string> {
  const data = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', data));
  return `"${[...bytes.slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('')}"`;
}

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
    // A cached answer (shared/cache/response.ts) carries the tag of its exact bytes: no re-hashing.
    const tag = c.res.headers.get('ETag') ?? (await strongTag(await c.res.clone().arrayBuffer()));
    // Keyed answers differ per key: browsers and CDNs may keep them only privately and must revalidate.
    const cacheControl = c.res.headers.get('Cache-Control') ?? 'private, no-cache';
    if (ifNoneMatch(c.req.header('If-None-Match'), tag)) {
      const headers = new Headers();
      c.res.headers.forEach((value, name) => {
        if (KEEP_ON_304.includes(name.toLowerCase())) headers.set(name, value);
      });
      headers.set('ETag', tag);
      headers.set('Cache-Control', cacheControl);
      c.res = new Response(null, { status: 304, headers });
      return;
    }
    c.res.headers.set('ETag', tag);
    c.res.headers.set('Cache-Control', cacheControl);
  };
}
