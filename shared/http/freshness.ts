// Freshness on every data answer (docs/DATA.md "Freshness"): `Data-As-Of` names the newest UTC hour
// whose observations are complete in the database the answer read (the data_watermark row, moved by
// ingest), and object envelopes carry the same value as `data_as_of`. An answer computed earlier and
// kept (aggregate and reference caches, the public edge) keeps the value it was computed with, and
// says how long ago with `Age`.
import type { MiddlewareHandler } from 'hono';
import { namespaces } from '../cache/namespaces';
import type { Db } from '../db/client';
import { queryRows } from '../db/raw';
import type { Config, Env } from '../env';
import { iso } from '../format';
import { withClients } from './keyless-services';

export const DATA_AS_OF = 'Data-As-Of';
/** How long an isolate reuses the watermark it read: a new hour shows within this many seconds. */
const WATERMARK_SECONDS = 2;

/**
 * The watermark each database last gave this isolate, and when. Fresher than WATERMARK_SECONDS it is
 * used as is; older, it is read again beside the request's own work; it is what an answer made while
 * the database cannot be read reports. A burst of requests on an isolate that holds none reads it
 * once (`reads`).
 */
const { held: watermarks, flights: reads } = namespaces.watermarks;
/** How long a held watermark still answers for a database that cannot be read. */
const HELD_MS = 3_600_000;

/**
 * Answers that are not data: the caller's quota and the tracking lists' own definitions (index and
 * detail). Everything else the keyed and public areas answer reads observations.
 */
const NOT_DATA = [/^\/v1\/usage$/, /^\/v1\/tracking\/lists(\/[^/]+)?\/?$/, /^\/public\/widget/, /^\/mcp/];

/** Whether an answer to this path carries `Data-As-Of` (paths and OpenAPI path templates alike). */
export const carriesDataAsOf = (path: string) => !NOT_DATA.some((pattern) => pattern.test(path));

type WatermarkConfig = Pick<Config, 'DATABASE_URL' | 'ISOLATE_CACHE_SECONDS'>;

const lifetimeMs = (config: WatermarkConfig) => Math.min(WATERMARK_SECONDS, config.ISOLATE_CACHE_SECONDS) * 1000;

/** Reads the watermark (one SQL statement) and keeps it as this isolate's value. */
function readWatermark(db: Db, config: WatermarkConfig): Promise<string | null> {
  return reads.once(config.DATABASE_URL, async () => {
    const [row] = await queryRows<{ complete_hour: string | null }>(db, 'SELECT complete_hour FROM data_watermark WHERE id = 1');
    const value = iso(row?.complete_hour ?? null);
    watermarks.set(config.DATABASE_URL, { value, readAt: Date.now() }, 64, HELD_MS);
    return value;
  });
}

/** The watermark as the API writes timestamps, or null before any ingest completed an hour: this isolate's, else read now. */
export async function dataAsOf(db: Db, config: WatermarkConfig): Promise<string | null> {
  const held = watermarks.get(config.DATABASE_URL);
  if (held && Date.now() - held.readAt < lifetimeMs(config)) return held.value;
  return readWatermark(db, config);
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
 * that built its body from a kept value set that value's header, which then wins, and waits for no
 * read. The watermark is the one this isolate holds while it is fresh; older (or none yet), it is read
 * beside the handler's own queries, so an answer computed now, and every copy kept of it, names the
 * hour its data reached. When that read fails (the database is down), the last value this isolate read
 * stands. Sits inside etag(), so the ETag covers the final body.
 */
export function freshness(): MiddlewareHandler<Env> {
  return async function freshness(c, next) {
    if (!carriesDataAsOf(c.req.path)) return next();
    const { config } = c.var;
    // A request whose clients load when it reads (a public route, shared/http/keyless-services.ts) reads the
    // watermark beside its own read (functions/public/limit.ts): `c.var.dataAsOf`.
    const asOf = c.var.store.full ? undefined : dataAsOf(c.var.db, config);
    asOf?.catch(() => undefined); // an unreachable database fails the handler, which answers for it
    await next();
    const res = c.res;
    if (res.status !== 200 || res.headers.has('ETag')) return;
    const read = () => asOf ?? withClients(c).then(() => dataAsOf(c.var.db, config));
    const value =
      res.headers.get(DATA_AS_OF) ??
      (c.var.dataAsOf !== undefined ? c.var.dataAsOf : await read().catch(() => watermarks.get(config.DATABASE_URL)?.value ?? null));
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
