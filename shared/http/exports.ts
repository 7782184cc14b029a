// CSV and NDJSON exports of list-shaped reads (docs/EXPORTS.md). A route opts in with
// `exportable(route, member)`: its document gains the `format` parameter and the two content types, and
// the exports() middleware turns its JSON page into one row (CSV) or one line (NDJSON) per element of
// `member`. The page is the JSON page: same parameters, same caches, same quota, same cursors.
import { z, type RouteConfig } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { namespaces } from '../cache/namespaces';
import type { Env } from '../env';
import { strongTag } from './etag';

const FORMATS = ['json', 'csv', 'ndjson'] as const;
type Format = (typeof FORMATS)[number];

const MEDIA_TYPES: Record<Exclude<Format, 'json'>, string> = {
  csv: 'text/csv; charset=utf-8; header=present',
  ndjson: 'application/x-ndjson',
};
/** What an `Accept` header may name, by format. */
const ACCEPTED: [string, Format][] = [
  ['application/json', 'json'],
  ['text/csv', 'csv'],
  ['application/x-ndjson', 'ndjson'],
  ['application/ndjson', 'ndjson'],
];

const FormatParam = z
  .enum(FORMATS)
  .optional()
  .openapi({
    param: { name: 'format', in: 'query' },
    description:
      'Representation of the page: `json` (default), `csv` (a header row of the item fields, nested fields as dotted names, arrays as JSON ' +
      'text, RFC 4180) or `ndjson` (one item per line). Wins over `Accept: text/csv` / `application/x-ndjson`. Same paging, cursors ' +
      '(`Link`) and quota as JSON.',
    example: 'json',
  });

interface Export {
  /** The envelope's array member whose elements are the rows. */
  member: string;
  /** The item schema: its fields (flattened) are the CSV columns, in schema order. */
  item: z.ZodType;
  columns?: string[][];
}

declare module '../cache/namespaces' {
  interface NamespaceValues {
    exportRoutes: Export;
  }
}

/** By `METHOD /hono/:path`, filled as route modules load. */
const byRoute = namespaces.exportRoutes.held;

const honoPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/** The schema of `type` under `schema`'s wrappers (optional, nullable, default, pipe, lazy), if any. */
function unwrapped(schema: z.ZodType | undefined, type: 'object' | 'array'): Record<string, unknown> | undefined {
  let s = schema;
  for (let i = 0; i < 16 && s; i++) {
    const def = s._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType; getter?: () => z.ZodType };
    if (def.type === type) return def as unknown as Record<string, unknown>;
    s = def.innerType ?? def.in ?? def.getter?.();
  }
  return undefined;
}

const objectShape = (schema: z.ZodType | undefined) => unwrapped(schema, 'object')?.shape as Record<string, z.ZodType> | undefined;
const arrayElement = (schema: z.ZodType | undefined) => unwrapped(schema, 'array')?.element as z.ZodType | undefined;

/** Column paths of an item schema: nested objects flatten to their fields; arrays, maps and scalars are one column. */
function columnsOf(schema: z.ZodType, prefix: string[] = []): string[][] {
  const shape = objectShape(schema);
  if (shape === undefined) return [prefix];
  return Object.entries(shape).flatMap(([name, field]) => columnsOf(field, [...prefix, name]));
}

/**
 * Declares a route's CSV and NDJSON representations: the `format` query parameter, the two content
 * types of its 200 answer, and the rows (`member` of the JSON envelope). Returns the route as it was
 * typed: handlers answer JSON; exports() converts.
 */
export function exportable<R extends RouteConfig>(route: R, member: string): R {
  const ok = route.responses[200] as { content: Record<string, { schema: z.ZodType }> };
  const envelope = ok.content['application/json'].schema;
  const item = arrayElement(objectShape(envelope)?.[member]);
  if (!item) throw new Error(`${route.path}: ${member} is not an array of the 200 answer`);
  byRoute.set(`${route.method.toUpperCase()} ${honoPath(route.path)}`, { member, item });
  const query = route.request?.query as z.ZodObject | undefined;
  const rows = `one per element of \`${member}\``;
  return {
    ...route,
    request: { ...route.request, query: (query ?? z.object({})).extend({ format: FormatParam }) },
    responses: {
      ...route.responses,
      200: {
        ...ok,
        content: {
          ...ok.content,
          'text/csv': {
            schema: z.string().openapi({
              description: `CSV (RFC 4180, UTF-8): a header row of the item fields, then rows ${rows}.`,
              example: 'id,title\r\n',
            }),
          },
          'application/x-ndjson': {
            schema: z.string().openapi({ description: `NDJSON: one JSON object per line, ${rows}.`, example: '{"id":"..."}\n' }),
          },
        },
      },
    },
  } as R;
}

function exportOf(c: Context): Export | undefined {
  // The first matching route answers (`/v1/entities/trending` before `/v1/entities/:entity_name`).
  const route = matchedRoutes(c).find((r) => r.method !== 'ALL' && !r.path.endsWith('*'));
  return route && byRoute.get(`${c.req.method} ${route.path}`);
}

/** The query's `format` wins; else the `Accept` media type with the highest q (JSON on a tie or none). */
function requestedFormat(query: string | undefined, accept: string | undefined): Format {
  if (query && (FORMATS as readonly string[]).includes(query)) return query as Format;
  let best: { format: Format; q: number } = { format: 'json', q: 0 };
  for (const part of (accept ?? '').split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const format = ACCEPTED.find(([media]) => media === type.trim())?.[1];
    const q = Number(
      params
        .map((p) => p.trim())
        .find((p) => p.startsWith('q='))
        ?.slice(2) ?? 1,
    );
    if (format && q > best.q) best = { format, q };
  }
  return best.format;
}

/** What a spreadsheet reads as the start of a formula (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * RFC 4180: a field with a comma, quote, CR or LF is quoted, its quotes doubled. A text value that
 * begins like a formula gets a leading `'` first (OWASP's advice), so no spreadsheet evaluates a
 * crawled title; numbers (a negative delta) stay numbers: they cannot carry a formula.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const raw = typeof value === 'object' ? JSON.stringify(value) : String(value);
  const text = typeof value === 'string' && FORMULA_START.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const valueAt = (item: unknown, path: string[]) =>
  path.reduce<unknown>(
    (value, name) => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined),
    item,
  );

const ROWS_PER_CHUNK = 200;

/** The rows as a stream: a large page goes out as it is written, never as one string. */
function rowsStream(items: unknown[], header: string | null, line: (item: unknown) => string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream({
    start(controller) {
      if (header !== null) controller.enqueue(encoder.encode(header));
    },
    pull(controller) {
      const end = Math.min(items.length, next + ROWS_PER_CHUNK);
      let chunk = '';
      for (; next < end; next++) chunk += line(items[next]);
      if (chunk) controller.enqueue(encoder.encode(chunk));
      if (next >= items.length) controller.close();
    },
  });
}

/** The `Link` of a page, with `format` as this request asked it (a kept page's link may come from another request). */
function linkFor(link: string, format: string | undefined): string {
  return link.replace(/<([^>]*)>/g, (_all, target: string) => {
    const url = new URL(target, 'https://api.invalid');
    if (format) url.searchParams.set('format', format);
    else url.searchParams.delete('format');
    return `<${url.pathname}${url.search}>`;
  });
}

export function exports(): MiddlewareHandler<Env> {
  return async function exports(c, next) {
    const spec = c.req.method === 'GET' ? exportOf(c) : undefined;
    if (!spec) return next();
    const query = c.req.query('format');
    const format = requestedFormat(query, c.req.header('Accept'));
    await next();
    const res = c.res;
    if (res.status !== 200) return;
    res.headers.append('Vary', 'Accept');
    const link = res.headers.get('Link');
    if (link) res.headers.set('Link', linkFor(link, query));
    if (format === 'json') return;
    const text = await res.text();
    const envelope = JSON.parse(text) as Record<string, unknown>;
    const items = (envelope[spec.member] as unknown[] | undefined) ?? [];
    const headers = new Headers(res.headers);
    headers.delete('Content-Length');
    headers.set('Content-Type', MEDIA_TYPES[format]);
    headers.set('Content-Disposition', `inline; filename="${spec.member}.${format}"`);
    // A representation of its own: the tag of the JSON content, bound to the format (no re-hash of the rows).
    headers.set('ETag', await strongTag(`${format}\n${res.headers.get('ETag') ?? (await strongTag(text))}`));
    if (typeof envelope.total === 'number') headers.set('X-Total-Count', String(envelope.total));
    let body: ReadableStream<Uint8Array>;
    if (format === 'csv') {
      const columns = (spec.columns ??= columnsOf(spec.item));
      const header = `${columns.map((path) => csvField(path.join('.'))).join(',')}\r\n`;
      body = rowsStream(items, header, (item) => `${columns.map((path) => csvField(valueAt(item, path))).join(',')}\r\n`);
    } else {
      body = rowsStream(items, null, (item) => `${JSON.stringify(item)}\n`);
    }
    c.res = undefined;
    c.res = new Response(body, { status: 200, headers });
  };
}
