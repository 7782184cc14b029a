// A cached answer as its final bytes: the JSON text, its strong ETag and the headers that go with
// it, so a hit is sent as stored (no JSON parse, no re-stringify, no re-hash of a large body).
import type { Context, TypedResponse } from 'hono';
import type { JSONParsed } from 'hono/utils/types';
import type { Env } from '../env';
import { strongTag } from '../http/etag';
import { ageHeader, dataAsOfHeaders, withDataAsOf } from '../http/freshness';

export interface CachedResponse {
  text: string;
  etag: string;
  headers: Record<string, string>;
  /** When it was computed (epoch ms): a kept answer says how long ago with `Age`. */
  storedAt: number;
  /** A stored refusal (4xx, text `{detail}`): what a queued job answered that no retry changes. Absent: 200. */
  status?: number;
}

/**
 * What `c.json(body, 200, headers)` would send, with the ETag the etag() middleware would give it,
 * and the freshness of the data it was computed from (`Data-As-Of`, `data_as_of`).
 */
export async function toCached(body: unknown, asOf: string | null, headers: Record<string, string> = {}): Promise<CachedResponse> {
  const text = JSON.stringify(withDataAsOf(body, asOf));
  return { text, etag: await strongTag(text), headers: { ...headers, ...dataAsOfHeaders(asOf) }, storedAt: Date.now() };
}

/** As stored in Redis: one line of metadata (JSON text never holds a raw newline), then the body. */
export function pack(cached: CachedResponse): string {
  const status = cached.status === undefined ? {} : { status: cached.status };
  return `${JSON.stringify({ etag: cached.etag, headers: cached.headers, storedAt: cached.storedAt, ...status })}\n${cached.text}`;
}

/** Undefined for anything that is not a packed answer (e.g. a value stored in an older format). */
export function unpack(stored: unknown): CachedResponse | undefined {
  if (typeof stored !== 'string') return undefined;
  const cut = stored.indexOf('\n');
  if (cut < 0) return undefined;
  try {
    const meta = JSON.parse(stored.slice(0, cut)) as Partial<CachedResponse>;
    if (typeof meta.etag !== 'string' || typeof meta.headers !== 'object' || meta.headers === null || typeof meta.storedAt !== 'number')
      return undefined;
    const status = typeof meta.status === 'number' && meta.status >= 400 && meta.status < 500 ? { status: meta.status } : {};
    return { text: stored.slice(cut + 1), etag: meta.etag, headers: meta.headers, storedAt: meta.storedAt, ...status };
  } catch {
    return undefined;
  }
}

/**
 * The 200 answer: the same bytes and headers as `c.json`, plus the ETag (etag() keeps it and answers
 * 304 on a match); `kept` (an answer computed by an earlier request) adds its `Age`.
 */
export function respond(c: Context<Env>, cached: CachedResponse, kept: boolean): Response {
  const age = kept ? ageHeader(cached.storedAt) : {};
  return c.body(cached.text, 200, { ...cached.headers, ...age, 'Content-Type': 'application/json', ETag: cached.etag });
}

/** A route's 200 JSON answer whose body is a `V`: what `c.json(body, 200)` returns, checked against the route's schema. */
export type JsonAnswer<V> = Response & TypedResponse<JSONParsed<V>, 200, 'json'>;

/**
 * `respond` for an answer whose text is the JSON of a `V` (toCached of a `V`). Only for caches that key
 * their entries by what computed them (an aggregate's kind, a reference read's route and its builder),
 * so that `V` comes from the computation and the compiler checks it against the route's schema, as
 * it does for `c.json` (docs/CONTRACT.md). The assertion adds only the body's type to the Response.
 */
export function respondAs<V>(c: Context<Env>, cached: CachedResponse, kept: boolean): JsonAnswer<V> {
  const response: Response = respond(c, cached, kept);
  return response as JsonAnswer<V>;
}
