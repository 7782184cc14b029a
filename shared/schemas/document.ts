// The OpenAPI document as a contract (docs/CONTRACT.md "How the document is built"): what every operation answers beyond its own route
// contract. The shared middleware (auth, limits, ETag, the public edge) adds statuses and headers to
// every route of an area; they are declared here, once, by rule, so no route can forget one.
// Adding a header to every operation it applies to is one line in HEADERS.
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { carriesDataAsOf, DATA_AS_OF } from '../http/freshness';
import { errorDescriptions, type ErrorStatus } from './common';

type Json = Record<string, unknown>;
type Registry = OpenAPIHono['openAPIRegistry'];
interface Response {
  description: string;
  headers?: Record<string, Json>;
  content?: Json;
}
interface Operation {
  operationId?: string;
  security?: unknown[];
  parameters?: { name: string; in: string; schema?: Json }[];
  responses: Record<string, Response>;
}

/** What a rule knows of an operation: its method, whether it needs a key, pages by cursor, answers CSV/NDJSON too. */
export interface OperationFacts {
  method: string;
  path: string;
  keyed: boolean;
  cursor: boolean;
  exports: boolean;
  /** Answers a text/event-stream (shared/streams): no end to tag, no revalidation. */
  stream: boolean;
}

export interface HeaderRule {
  name: string;
  description: string;
  schema: Json;
  /** `required`: every such response carries it (the contract suite checks those); `optional`: some do. */
  on(op: OperationFacts, status: number): 'required' | 'optional' | false;
}

const text = (example: string): Json => ({ type: 'string', example });
const isGet = (op: OperationFacts) => op.method === 'get';

export const HEADERS: HeaderRule[] = [
  {
    name: 'ETag',
    description: 'Strong validator of the body; send it back as `If-None-Match` to get a 304.',
    schema: text('"4f1c2a9be07d13c5a2f0e8d6b3c1a7e9"'),
    on: (op, s) => isGet(op) && !op.stream && (s === 200 || s === 304) && 'required',
  },
  {
    name: 'Cache-Control',
    description:
      'Keyed answers: `private, no-cache` (revalidate with `If-None-Match`, free of quota). Public answers: shared-cache lifetimes.',
    schema: text('private, no-cache'),
    on: (op, s) => (isGet(op) && (s === 200 || s === 304) ? 'required' : !op.keyed && 'required'),
  },
  {
    name: 'RateLimit',
    description: 'Remaining requests of each policy and seconds to its reset (IETF draft `RateLimit` header).',
    schema: text('"minute";r=59;t=60, "month";r=99999;t=604800'),
    on: (op, s) => (s === 429 || (op.keyed && s === 200) ? 'required' : (s < 400 || s === 404 || s === 422 || s === 400) && 'optional'),
  },
  {
    name: 'RateLimit-Policy',
    description: 'The policies behind `RateLimit`: quota and window in seconds.',
    schema: text('"minute";q=60;w=60, "month";q=100000;w=2592000'),
    on: (op, s) => (s === 429 || (op.keyed && s === 200) ? 'required' : (s < 400 || s === 404 || s === 422 || s === 400) && 'optional'),
  },
  {
    name: 'Retry-After',
    description: 'Seconds to wait before repeating the request.',
    schema: { type: 'integer', minimum: 1, example: 15 },
    on: (_op, s) => (s === 429 || s === 503) && 'required',
  },
  {
    name: 'Link',
    description: 'The next page (`rel="next"`), when there is one; the same URL with `cursor` set to `next_cursor`.',
    schema: text('<https://api.example.com/v2/feed?period=24h&cursor=...>; rel="next"'),
    on: (op, s) => op.cursor && s === 200 && 'optional',
  },
  {
    name: 'Vary',
    description: 'Public answers vary only by encoding: any cache may share them.',
    schema: text('Accept-Encoding'),
    on: (op) => !op.keyed && 'required',
  },
  {
    name: 'Vary',
    description: 'The representation follows `Accept` (JSON, CSV or NDJSON; docs/EXPORTS.md).',
    schema: text('Accept'),
    on: (op, s) => op.exports && s === 200 && 'required',
  },
  {
    name: 'X-Total-Count',
    description: "CSV and NDJSON answers: the envelope's `total` (rows matching the filters), where the route has one.",
    schema: { type: 'integer', minimum: 0, example: 1234 },
    on: (op, s) => op.exports && s === 200 && 'optional',
  },
  {
    name: 'Content-Disposition',
    description: 'CSV and NDJSON answers: `inline`, with a file name for saving (`items.csv`).',
    schema: text('inline; filename="items.csv"'),
    on: (op, s) => op.exports && s === 200 && 'optional',
  },
  {
    name: 'Access-Control-Allow-Origin',
    description: 'Public routes: CORS for any origin.',
    schema: text('*'),
    on: (op) => !op.keyed && 'required',
  },
  {
    name: 'Access-Control-Expose-Headers',
    description: 'Public routes: headers a browser script may read.',
    schema: text('ETag, Retry-After, RateLimit, RateLimit-Policy, Data-As-Of, Age, X-Request-Id'),
    on: (op) => !op.keyed && 'required',
  },
  {
    name: 'X-Request-Id',
    description:
      "This request's id (the caller's own `X-Request-Id` echoed when it is 8-128 letters, digits or `-_.:`); it names the request's log line (README \"Operating\").",
    schema: text('0f8e2c4a-9b1d-4e6f-8a3c-5d7e9f1b2c4d'),
    on: () => 'required',
  },
  { name: 'X-Content-Type-Options', description: 'Always `nosniff`.', schema: text('nosniff'), on: () => 'required' },
  { name: 'Referrer-Policy', description: 'Always `no-referrer`.', schema: text('no-referrer'), on: () => 'required' },
  {
    name: 'Content-Security-Policy',
    description:
      'JSON answers: nothing may load and no page may frame them; `/docs` and the widget demo: their own scripts and styles, framed only by this site (docs/SECURITY.md).',
    schema: text("default-src 'none'; frame-ancestors 'none'"),
    on: () => 'required',
  },
  {
    name: 'Cache-Status',
    description:
      'Only on a stale answer (RFC 9211): the database was unreachable and this is the last good copy of the same request by the same key, e.g. `discovery-api; fwd=stale; fwd-status=503; ttl=-120; detail=database-unreachable`.',
    schema: text('discovery-api; fwd=stale; fwd-status=503; ttl=-120; detail=database-unreachable'),
    on: (op, s) => op.keyed && isGet(op) && s === 200 && 'optional',
  },
  {
    name: 'Age',
    description:
      "Only on an answer kept from an earlier request (a cached aggregate or reference read, the public edge's copy, a stale copy): seconds since it was computed.",
    schema: { type: 'integer', minimum: 0, example: 120 },
    on: (op, s) => isGet(op) && s === 200 && 'optional',
  },
  {
    name: DATA_AS_OF,
    description:
      'The newest UTC hour whose observations are complete in the data this answer was computed from (docs/DATA.md "Freshness"); the same value as the body\'s `data_as_of`. Absent only before any ingest completed an hour.',
    schema: text('2026-03-01T11:00:00+00:00'),
    on: (op, s) => carriesDataAsOf(op.path) && s === 200 && 'optional',
  },
];

const NOT_MODIFIED =
  'Not modified: the `If-None-Match` tag is current. Keyed routes: counts toward the per-minute limit, not the monthly quota.';
const NO_ROUTE = 'No route matches the path: a path parameter is empty. (An unknown id answers an empty list here, not 404.)';
/** Statuses the keyed chain (hygiene, auth, plan gates, limits, scope) can answer on any keyed route. */
const KEYED_STATUSES: ErrorStatus[] = [401, 402, 403, 422, 429, 503];

/** `minimum`/`maximum` of a number parameter, read from its zod schema (z.coerce hides them from the generator). */
function bounds(schema: unknown): { minimum?: number; maximum?: number } {
  let s = schema as z.ZodType | undefined;
  for (let i = 0; i < 8 && s; i++) {
    if (s instanceof z.ZodNumber) {
      const out: { minimum?: number; maximum?: number } = {};
      // `.int()` alone sets the safe-integer range: that is no range the caller needs told.
      if (s.minValue !== null && Number.isFinite(s.minValue) && s.minValue > Number.MIN_SAFE_INTEGER) out.minimum = s.minValue;
      if (s.maxValue !== null && Number.isFinite(s.maxValue) && s.maxValue < Number.MAX_SAFE_INTEGER) out.maximum = s.maxValue;
      return out;
    }
    const def = (s as z.ZodType)._zod.def as { innerType?: z.ZodType; in?: z.ZodType };
    s = def.innerType ?? def.in;
  }
  return {};
}

/** Parameter ranges by `METHOD path name`, from every route registered on the app. */
function parameterBounds(registry: Registry) {
  const out = new Map<string, { minimum?: number; maximum?: number }>();
  for (const def of registry.definitions) {
    if (def.type !== 'route') continue;
    const { method, path, request } = def.route;
    for (const part of [request?.query, request?.params]) {
      const shape = (part as { shape?: Record<string, unknown> } | undefined)?.shape ?? {};
      for (const [name, field] of Object.entries(shape)) {
        const range = bounds(field);
        if (range.minimum !== undefined || range.maximum !== undefined) out.set(`${method} ${path} ${name}`, range);
      }
    }
  }
  return out;
}

/** The `data_as_of` member every object envelope of a data answer carries (shared/http/freshness.ts). */
const DATA_AS_OF_MEMBER: Json = {
  type: 'object',
  properties: {
    data_as_of: {
      type: ['string', 'null'],
      format: 'date-time',
      example: '2026-03-01T11:00:00+00:00',
      description:
        'The same value as the `Data-As-Of` header: the newest UTC hour whose observations are complete in the data behind this answer; null before any ingest completed an hour.',
    },
  },
};

/** A data operation's JSON object answer documents `data_as_of` beside its own schema. */
function addDataAsOf(op: OperationFacts, response: Response, components: Record<string, Json>) {
  const media = (response.content as Record<string, { schema?: Json }> | undefined)?.['application/json'];
  if (!media?.schema || !carriesDataAsOf(op.path)) return;
  const ref = media.schema.$ref as string | undefined;
  const target = ref ? components[ref.split('/').at(-1)!] : media.schema;
  if (target?.type === 'array') return;
  media.schema = { allOf: [media.schema, DATA_AS_OF_MEMBER] };
}

function addHeaders(op: OperationFacts, status: string, response: Response) {
  for (const rule of HEADERS) {
    const presence = rule.on(op, Number(status));
    if (!presence) continue;
    response.headers = {
      ...response.headers,
      [rule.name]: { description: rule.description, required: presence === 'required', schema: rule.schema },
    };
  }
}

/**
 * Completes the generated document: public operations get `security: []`; keyed ones the statuses
 * of the keyed chain; every GET its 304 (keyed GETs through shared/http/etag.ts, public ones through the
 * edge); every response the headers HEADERS assigns it; number parameters their zod ranges.
 */
export function completeDocument<T extends { paths?: object; components?: object }>(doc: T, registry: Registry): T {
  const ranges = parameterBounds(registry);
  const errorRef = { $ref: '#/components/schemas/Error' };
  // The generator's path types are looser than what it emits: every path item here holds operations.
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Operation>>;
  const components = (doc.components as { schemas?: Record<string, Json> } | undefined)?.schemas ?? {};
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const keyed = (operation.security?.length ?? 0) > 0;
      if (!keyed) operation.security = [];
      const exports = Object.keys((operation.responses['200']?.content as Json | undefined) ?? {}).includes('text/csv');
      const facts: OperationFacts = {
        method,
        path,
        keyed,
        cursor: (operation.parameters ?? []).some((p) => p.in === 'query' && p.name === 'cursor'),
        exports,
        stream: Object.keys((operation.responses['200']?.content as Json | undefined) ?? {}).includes('text/event-stream'),
      };
      const { responses } = operation;
      if (keyed) {
        for (const status of KEYED_STATUSES)
          responses[status] ??= { description: errorDescriptions[status], content: { 'application/json': { schema: errorRef } } };
      }
      // The router answers 404 when a path id is empty (`/v1/themes//topics` matches no route), even
      // where the route itself answers an unknown id with an empty list.
      if (path.includes('{')) responses['404'] ??= { description: NO_ROUTE, content: { 'application/json': { schema: errorRef } } };
      if (method === 'get' && !facts.stream) responses['304'] = { description: NOT_MODIFIED };
      for (const [status, response] of Object.entries(responses)) addHeaders(facts, status, response);
      if (responses['200']) addDataAsOf(facts, responses['200'], components);
      for (const parameter of operation.parameters ?? []) {
        const range = ranges.get(`${method} ${path} ${parameter.name}`);
        if (range && parameter.schema) Object.assign(parameter.schema, range);
      }
    }
  }
  return doc;
}
