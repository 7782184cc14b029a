// Authenticates every keyed request: `X-API-Key` or `Authorization: Bearer`, never the query.
import type { Context, MiddlewareHandler } from 'hono';
import { afterResponse } from '../http/after-response';
import type { Env } from '../env';
import { ApiError, coded } from '../http/errors';
import { authFailuresBlocked, countAuthFailure } from '../limits/auth-failures';
import { clientIp } from '../limits/client-ip';
import { presentedKey } from './presented';

const QUERY_KEY_NAMES = ['api_key', 'apikey', 'key', 'token', 'access_token', 'x-api-key'];
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="discovery-api"' };

/**
 * Requires a valid API key and puts its AuthContext in `c.var.auth`.
 * @example area.use('/v1/geo/*', requireApiKey())
 */
export function requireApiKey(): MiddlewareHandler<Env> {
  return async function requireApiKey(c, next) {
    // A client that caused too many 401s this minute: 429 before any lookup (shared/limits/auth-failures.ts).
    const ip = clientIp(c.req.raw.headers);
    const blocked = authFailuresBlocked(c.var.store, ip);
    if (blocked) throw blocked;
    try {
      c.set('auth', await authenticate(c, presentedKey(c.req)));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) void afterResponse(c, countAuthFailure(c.var.store, ip));
      throw err;
    }
    await next();
  };
}

function missingKey(c: Context<Env>): ApiError {
  const inQuery = QUERY_KEY_NAMES.some((name) => c.req.query(name) !== undefined);
  return new ApiError(
    401,
    inQuery
      ? 'API keys in the query string are not accepted: send the key in the X-API-Key header or as Authorization: Bearer <key>'
      : 'Missing API key: send the X-API-Key header or an Authorization: Bearer <key> header',
    CHALLENGE,
  );
}

async function authenticate(c: Context<Env>, key: string | undefined, fresh = false) {
  if (!key) throw missingKey(c);
  // Loaded when a key is presented: a request without one never evaluates the lookup's tables and drizzle.
  const { resolveKey } = await import('./keys');
  const auth = await resolveKey(c.var.db, key, fresh).catch((err: Error) => {
    // The plan cannot be read: never guess, never serve unfiltered data.
    console.error('key lookup failed', err.message);
    throw coded('entitlement_unavailable', 'Your plan could not be read just now; retry shortly.', {}, { 'Retry-After': '5' });
  });
  if (!auth)
    throw new ApiError(
      401,
      'Invalid API key: the X-API-Key header or Authorization: Bearer key is missing or invalid (unknown or revoked)',
      CHALLENGE,
    );
  return auth;
}

/**
 * Reads the request's key again (the auth version changed after it was read from the isolate's
 * cache, or it was past its lifetime there: it may have been revoked, or its plan changed): 401 if
 * it is gone.
 */
export async function reauthenticate(c: Context<Env>): Promise<void> {
  c.set('auth', await authenticate(c, presentedKey(c.req), true));
}
