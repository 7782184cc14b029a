// Request bodies are bounded before anything reads them (issue 19): before the input hygiene parses
// JSON and before authentication, so an anonymous 50 MB POST costs at most its route's limit in
// memory. A declared Content-Length over the limit is refused unread; a streamed body is counted and
// refused once it passes the limit (hono's bodyLimit buffers at most `maxSize` bytes).
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from './errors';

const KiB = 1024;
/** Route limits by path; every other path (no route takes a body there) gets DEFAULT_BODY_LIMIT. */
export const BODY_LIMITS: Record<string, number> = {
  '/public/platform-profile/bulk': 64 * KiB,
  '/mcp': 256 * KiB,
};
export const DEFAULT_BODY_LIMIT = 8 * KiB;

export const bodyLimitOf = (path: string) => BODY_LIMITS[path.replace(/\/+$/, '')] ?? DEFAULT_BODY_LIMIT;

const limiters = new Map<number, MiddlewareHandler>();
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

export function bodyLimits(): MiddlewareHandler {
  return async function bodyLimits(c, next) {
    if (!c.req.raw.body) return next();
    return limiter(bodyLimitOf(c.req.path))(c, next);
  };
}
