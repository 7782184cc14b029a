// Schemas every area shares: errors, pagination, query booleans, route defaults.
import { z } from '@hono/zod-openapi';
import { LIMITS_NOTE } from '../limits/headers';

export const ValidationIssueSchema = z
  .object({
    loc: z.array(z.union([z.string(), z.number()])).openapi({ example: ['query', 'limit'] }),
    msg: z.string().openapi({ example: 'Too big: expected number to be <=200' }),
    type: z.string().openapi({ example: 'less_than_equal' }),
  })
  .openapi('ValidationIssue');

export const CodedDetailSchema = z
  .object({
    code: z.string().openapi({ example: 'market_not_entitled' }),
    message: z.string().openapi({ example: 'This key is market-scoped but its project has no markets.' }),
  })
  .passthrough()
  .openapi('CodedDetail');

export const ErrorSchema = z
  .object({
    detail: z.union([z.string(), CodedDetailSchema, z.array(ValidationIssueSchema)]).openapi({
      description: 'A message, a `{code, message}` object, or (422) a list of validation issues.',
      example: 'Missing API key: send the X-API-Key header or an Authorization: Bearer <key> header',
    }),
  })
  .openapi('Error');

export const errorDescriptions = {
  400: 'A parameter is present but unusable.',
  401: 'Missing or invalid API key.',
  402: '`subscription_inactive`: the project subscription is not active.',
  403: 'The key is not scoped to the requested market, its markets resolve to nothing (`market_not_entitled`, on every market-scoped route), or a plan gate applies.',
  404: 'Resource not found.',
  422: 'Parameter validation failure (type, enum, range).',
  429: `Per-minute rate limit or monthly quota exceeded, or more than 20 missing or invalid keys in a minute from this address; see \`Retry-After\`. ${LIMITS_NOTE}`,
  503: 'A dependency is briefly degraded, an aggregate is being computed (`computing`), or the query ran past the request statement timeout of 5 s and was cancelled (`query_timeout`); retry after `Retry-After`.',
};
export type ErrorStatus = keyof typeof errorDescriptions;

/** 413 for a route that takes a body: refused unread, before the key is checked (shared/http/body-limits.ts). */
export const tooLargeResponse = (maxBytes: number) => ({
  description: `Body larger than ${maxBytes} bytes (${maxBytes / 1024} KiB): refused before it is read.`,
  content: { 'application/json': { schema: ErrorSchema } },
});

export function errorResponses(...statuses: ErrorStatus[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: errorDescriptions[status], content: { 'application/json': { schema: ErrorSchema } } },
    ]),
  ) as Record<ErrorStatus, { description: string; content: { 'application/json': { schema: typeof ErrorSchema } } }>;
}

/** Security requirement for keyed routes: either header works. */
export const keyed: Record<string, string[]>[] = [{ ApiKeyHeader: [] }, { BearerAuth: [] }];

export function queryBool(description: string, fallback = false) {
  return z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1')
    .openapi({ description, type: 'boolean', default: fallback, example: fallback });
}

export function limitParam(max: number, fallback: number) {
  return z.coerce
    .number()
    .int()
    .min(1)
    .max(max)
    .default(fallback)
    .openapi({ description: `Page size, 1-${max}.`, example: fallback, type: 'integer' });
}

/** Deepest offset: deeper pages walk ever more index rows and skip the cache (docs/SECURITY.md "Caps on query shapes"). */
export const MAX_OFFSET = 10_000;

export const offsetParam = z.coerce
  .number()
  .int()
  .min(0)
  .max(MAX_OFFSET, `offset is at most ${MAX_OFFSET}; page deeper with cursor (next_cursor) where the route has one, or narrow the filters`)
  .default(0)
  // The explicit type replaces the generated schema, so the range is stated here too.
  .openapi({ description: `Rows to skip, 0-${MAX_OFFSET}.`, example: 0, type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 });

export const uuidParam = (description: string) =>
  z.string().uuid().openapi({ description, example: '7a1f3c9e-2b4d-4e8f-9a0b-1c2d3e4f5a6b' });
