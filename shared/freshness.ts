// Freshness on every data answer (docs/DATA.md "Freshness"): `Data-As-Of` names the newest UTC hour
// whose observations are complete in the database the answer read (the data_watermark row, moved by
// ingest), and object envelopes carry the same value as `data_as_of`. An answer computed earlier and
// kept (aggregate and reference caches, the public edge) keeps the value it was computed with, and
// says how long ago with `Age`.
import type { MiddlewareHandler } from 'hono';
import { IsolateCache } from './cache/memory';
import type { Db } from './db/client';
import { queryRows } from './db/raw';
import type { Config, Env } from './env';
import { iso } from './format';

export const DATA_AS_OF = 'Data-As-Of';
/** How long an isolate reuses the watermark it read: a new hour shows within this many seconds. */
const WATERMARK_SECONDS = 5;

const watermarks = new IsolateCache<string | null>({ entries: 16, bytes: 4_096 });
/** The last watermark each database gave this isolate, whatever its age: what an answer made while it cannot be read reports. */
const lastKnown = new Map<string, string | null>();

/**
 * Answers that are not data: the caller's quota and the tracking lists' own definitions (index and
 * detail). Everything else the keyed and public areas answer reads observations.
 */
const NOT_DATA = [/^\/v1\/usage$/, /^\/v1\/tracking\/lists(\/[^/]+)?\/?$/, /^\/public\/widget/, /^\/mcp/];

/** Whether an answer to this path carries `Data-As-Of` (paths and OpenAPI path templates alike). */
export const carriesDataAsOf = (path: string) => !NOT_DATA.some((pattern) => pattern.test(path));

/** The watermark as the API writes timestamps, or null before any ingest completed an hour. */
export async function dataAsOf(db: Db, config: Pick<Config, 'DATABASE_URL' | 'ISOLATE_CACHE_SECONDS'>): Promise<string | null> {
  const seconds = Math.min(WATERMARK_SECONDS, config.ISOLATE_CACHE_SECONDS);
  const held = seconds > 0 ? watermarks.get(config.DATABASE_URL) : undefined;
  if (held !== undefined) return held;
  const [row] = await queryRows<{ complete_hour: string | null }>(db, 'SELECT complete_hour FROM data_watermark WHERE id = 1');
  const value = iso(row?.complete_hour ?? null);
  watermarks.set(config.DATABASE_URL, value, 64, seconds * 1000);
  lastKnown.set(config.DATABASE_URL, value);
  return value;
}

/** An object envelope with `data_as_of` after its own members; anything else (a bare array) as it is. */
export function withDataAsOf(body: unknown, asOf: string | null): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  return { ...body, data_as_of: asOf };
}

/** The `Data-As-Of` header of an answer computed at `asOf` (none before the first complete hour). */
export const dataAsOfHeaders = (asOf: string | null): Record<string, string> => (asOf ? { [DATA_AS_OF]: asOf } : {});

/** `Age` of an answer kept since `storedAt` (epoch ms). */
export const ageHeader = (storedAt: number, now = Date.now()) => ({ Age: String(Math.max(0, Math.floor((now - storedAt) / 1000))) });

/**
 * Marks the data answers this request's handler built itself: `Data-As-Of`, and `data_as_of` in a
 * JSON object body. A kept answer sent as stored (it carries its ETag) has both already; a handler
 * that built its body from a kept value set that value's header, which then wins. The watermark is
 * read beside the handler's own queries, not after them; when it cannot be read (the database is
 * down, the answer came from a cache), the last value this isolate read stands. Sits inside etag(),
 * so the ETag covers the final body.
 */
export function freshness(): MiddlewareHandler<Env> {
  return async function freshness(c, next) {
    if (!carriesDataAsOf(c.req.path)) return next();
    const { db, config } = c.var;
    const asOf = dataAsOf(db, config);
    asOf.catch(() => undefined); // an unreachable database fails the handler, which answers for it
    await next();
    const res = c.res;
    if (res.status !== 200 || res.headers.has('ETag')) return;
    const value = res.headers.get(DATA_AS_OF) ?? (await asOf.catch(() => lastKnown.get(config.DATABASE_URL) ?? null));
    const json = res.headers.get('Content-Type')?.startsWith('application/json') ?? false;
    if (!json) {
      if (value) res.headers.set(DATA_AS_OF, value);
      return;
    }
    const text = await res.text();
    // The same text JSON.stringify(withDataAsOf(body)) would give, without parsing the body again.
    const member = `"data_as_of":${JSON.stringify(value)}}`;
    const body = text.startsWith('{') && text.endsWith('}') ? `${text.slice(0, -1)}${text === '{}' ? '' : ','}${member}` : text;
    const headers = new Headers(res.headers);
    headers.delete('Content-Length');
    if (value) headers.set(DATA_AS_OF, value);
    c.res = undefined;
    c.res = new Response(body, { status: 200, headers });
  };
}
