// Opaque, versioned, HMAC-signed page cursors (docs/DECISIONS.md "Cursors"). A cursor is
// `base64url(JSON payload).base64url(HMAC-SHA256(secret, payload))`; the payload binds it to the
// caller (project or key), the route and its parameters, and carries the keyset position. Anything
// altered, issued for another query or key, of another version, or expired answers 400.
import type { Config } from '../env';
import { DEV_CURSOR_SECRET } from './dev-secrets';
import { ApiError } from './errors';
import { sha256Hex } from '../hash';

/**
 * The key cursors are signed with, or undefined when there is none to trust: CURSOR_SECRET unset, or the
 * known dev value outside development. Without it, paging falls back to offsets (`next_cursor: null`).
 */
export function cursorSecret(config: Pick<Config, 'CURSOR_SECRET' | 'ENVIRONMENT'>): string | undefined {
  const secret = config.CURSOR_SECRET;
  if (!secret) return undefined;
  if (secret === DEV_CURSOR_SECRET && config.ENVIRONMENT !== 'development') return undefined;
  return secret;
}

// 2: adds the feed snapshot version `s` (cursor pages read the sort values as of it).
export const CURSOR_VERSION = 2;
/** How long a cursor stays usable after the first page of its iteration. */
export const CURSOR_TTL_MS = 24 * 3_600_000;

export interface CursorPayload {
  v: number;
  /** Binding: hash of caller + route + canonical parameters. */
  b: string;
  /** Keyset position: the last row's sort value and tie-breakers. */
  k: unknown[];
  /** The iteration's pinned "now" (ISO), so filters relative to now do not move between pages. */
  n: string;
  /** Matches counted on the first page (kept for the whole iteration). */
  t: number;
  /** The feed version the first page read (docs/DATA.md "Feed snapshots"). */
  s: number;
}

const encoder = new TextEncoder();

function b64url(bytes: Uint8Array): string {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromB64url(text: string): Uint8Array {
  const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

async function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

/** Hex SHA-256 of `parts` joined unambiguously (binding hashes, cache keys, ETags). */
export const digest = (...parts: string[]): Promise<string> => sha256Hex(JSON.stringify(parts));

export async function signCursor(secret: string, payload: Omit<CursorPayload, 'v'>): Promise<string> {
  const body = encoder.encode(JSON.stringify({ v: CURSOR_VERSION, ...payload }));
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret), body));
  return `${b64url(body)}.${b64url(mac)}`;
}

const PAGE_ADVICE =
  'Use the next_cursor (or Link rel="next") of the previous page unchanged, with the same parameters and key, or start again without a cursor.';

/** A stream's resume token (Last-Event-ID) is a cursor too: the same rule, its own advice. */
export const RESUME_ADVICE =
  'Send the id of the last event received unchanged as Last-Event-ID, with the same parameters and key, or open the stream again without it.';

const invalidToken = (why: string, advice = PAGE_ADVICE, what = 'cursor') => new ApiError(400, `Invalid ${what}: ${why}. ${advice}`);

/** Verifies the signature, version, binding and age; returns the payload or throws a 400. */
export async function openCursor(
  secret: string | undefined,
  token: string,
  binding: string,
  now: Date,
  advice?: { text: string; what: string },
): Promise<CursorPayload> {
  const invalidCursor = (why: string) => invalidToken(why, advice?.text, advice?.what);
  // No trusted key: no cursor can be verified (none was issued by this deployment either).
  if (!secret) throw invalidCursor('cursor paging is not available on this deployment (use offset paging)');
  const [body, mac, extra] = token.split('.');
  if (!body || !mac || extra !== undefined || !/^[A-Za-z0-9_-]+$/.test(body + mac)) throw invalidCursor('it is malformed');
  let bodyBytes: Uint8Array;
  let macBytes: Uint8Array;
  try {
    bodyBytes = fromB64url(body);
    macBytes = fromB64url(mac);
  } catch {
    throw invalidCursor('it is malformed');
  }
  const ok = await crypto.subtle.verify('HMAC', await hmacKey(secret), macBytes as BufferSource, bodyBytes as BufferSource);
  if (!ok) throw invalidCursor('its signature does not match (it was altered or not issued by this API)');
  let payload: CursorPayload;
  try {
    payload = JSON.parse(new TextDecoder().decode(bodyBytes)) as CursorPayload;
  } catch {
    throw invalidCursor('it is malformed');
  }
  if (payload.v !== CURSOR_VERSION) throw invalidCursor(`version ${String(payload.v)} is not supported (current: ${CURSOR_VERSION})`);
  if (payload.b !== binding) throw invalidCursor('it was issued for another query, route or API key');
  const issued = Date.parse(payload.n);
  if (!Number.isFinite(issued) || !Array.isArray(payload.k) || typeof payload.t !== 'number' || !Number.isSafeInteger(payload.s))
    throw invalidCursor('it is malformed');
  if (now.getTime() - issued > CURSOR_TTL_MS) throw invalidCursor('it has expired (cursors last 24 hours)');
  return payload;
}
