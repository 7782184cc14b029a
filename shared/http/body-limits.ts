// Request bodies are bounded before anything reads them (docs/SECURITY.md "Bodies"): before the input hygiene parses
// JSON and before authentication, so an anonymous 50 MB POST costs at most its route's limit in
// memory. A declared Content-Length over the limit is refused unread; a streamed body is counted and
// refused once it passes the limit (hono's bodyLimit buffers at most `maxSize` bytes).
// Each area names the limits of its own body-taking routes (AreaOptions.bodyLimits), so no bundle
// carries another area's paths.
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { namespaces } from '../cache/namespaces';
import { ApiError } from './errors';

export const KiB = 1024;
/** Every path an area does not name (no route takes a body there). */
export const DEFAULT_BODY_LIMIT = 8 * KiB;

const limiters = namespaces.bodyLimiters.held;
function limiter(maxSize: number): MiddlewareHandler {
  let limit = limiters.get(maxSize);
  if (!limit) {
    limit = bodyLimit({
      maxSize,
      onError: () => {
        throw new ApiError(413, `Body larger than ${maxSize} bytes (${maxSize / KiB} KiB), the limit of this route`);
      },
    });
    limiters.set(maxSize, limit);
  }
  return limit;
}

/** `limits`: bytes by exact path (a trailing slash ignored); every other path gets DEFAULT_BODY_LIMIT. */
export function bodyLimits(limits: Record<string, number> = {}): MiddlewareHandler {
  return async function bodyLimits(c, next) {
    if (!c.req.raw.body) return next();
    return limiter(limits[c.req.path.replace(/\/+$/, '')] ?? DEFAULT_BODY_LIMIT)(c, next);
  };
}
