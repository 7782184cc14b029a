// X-Request-Id (README "Operating"): the caller's own id when it is a safe token, otherwise a new one.

/** Letters, digits and `-_.:`, 8-128 characters: safe to echo into headers and log lines. */
const SAFE = /^[A-Za-z0-9._:-]{8,128}$/;

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * The id of one request: the caller's `X-Request-Id` when safe; else derived from Cloudflare's
 * `cf-ray` (so an operator can go from the ray in a support ticket to the log line), with a random
 * suffix because one ray may carry several requests (MCP tool calls); else a random UUID.
 */
export function requestIdOf(headers: Headers): string {
  const own = headers.get(REQUEST_ID_HEADER)?.trim();
  if (own && SAFE.test(own)) return own;
  const suffix = crypto.randomUUID().replaceAll('-', '').slice(0, 12);
  const ray = headers.get('cf-ray')?.trim();
  if (ray && /^[A-Za-z0-9-]{8,64}$/.test(ray)) return `${ray}:${suffix}`;
  return crypto.randomUUID();
}
