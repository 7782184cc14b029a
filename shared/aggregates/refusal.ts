// Queued aggregates that fail for a reason no retry fixes (docs/SECURITY.md "Jobs"): the job stores the refusal under
// the aggregate's cache key, so the caller gets that 4xx instead of 503 `computing` until the lock expires.
import type { CachedResponse } from '../cache/response';
import { ApiError, type Detail } from '../http/errors';

/** How long a stored refusal answers: short, since what refused (a trend's visibility, a list) can change. */
export const REFUSAL_TTL_SECONDS = 60;

/** The Postgres SQLSTATE of an error or of its cause (drizzle wraps the driver's error). */
function sqlState(err: unknown): string | null {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

const DATA_EXCEPTION = 'The requested window or values cannot be computed (out of range); change the request.';

/**
 * The answer a failed job stores, or null when a retry may succeed (connections, timeouts, anything
 * unknown). Refusals: the request's own 4xx (e.g. 404 when the trend left the key's scope) and
 * PostgreSQL data exceptions (class 22, e.g. "time zone displacement out of range"), as a 422.
 */
export function refusalOf(err: unknown): CachedResponse | null {
  let status: number;
  let detail: Detail;
  if (err instanceof ApiError && err.status >= 400 && err.status < 500) {
    status = err.status;
    detail = err.detail;
  } else if (sqlState(err)?.startsWith('22')) {
    status = 422;
    detail = [{ loc: ['query'], msg: DATA_EXCEPTION, type: 'value_error' }];
  } else {
    return null;
  }
  return { text: JSON.stringify({ detail }), etag: '', headers: {}, storedAt: Date.now(), status };
}

/** A stored refusal is thrown as the error it was; an answer passes. */
export function throwIfRefusal(cached: CachedResponse): void {
  if (cached.status === undefined) return;
  const { detail } = JSON.parse(cached.text) as { detail: Detail };
  throw new ApiError(cached.status as ApiError['status'], detail);
}
