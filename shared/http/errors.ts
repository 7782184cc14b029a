// The API's three error shapes (README "Errors"): a string, {code, message}, or a validation array.
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { levelOf, log } from '../observability/log';

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface CodedDetail {
  code: string;
  message: string;
  [extra: string]: unknown;
}

export type Detail = string | CodedDetail | ValidationIssue[];

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly detail: Detail,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : Array.isArray(detail) ? 'validation error' : detail.message);
  }
}

/**
 * Every `{code, message}` error the API answers, with its status: the codes the specification defines, plus
 * the codes this API adds (`rate_limited`, `quota_exceeded`, `query_timeout`,
 * `dependency_unavailable`). A code is named here once; `coded` takes its status from here.
 */
export const ERROR_STATUS = {
  kind_mismatch: 400,
  subscription_inactive: 402,
  api_not_in_plan: 403,
  mcp_not_in_plan: 403,
  project_key_required: 403,
  market_not_entitled: 403,
  category_not_in_plan: 403,
  endpoint_not_in_plan_scope: 403,
  video_not_in_plan: 403,
  out_of_plan_scope: 404,
  list_too_large: 422,
  rate_limited: 429,
  quota_exceeded: 429,
  too_many_streams: 429,
  computing: 503,
  entitlement_unavailable: 503,
  scope_unavailable: 503,
  dependency_unavailable: 503,
  query_timeout: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const coded = (code: ErrorCode, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  new ApiError(ERROR_STATUS[code], { code, message, ...extra }, headers);

export const badRequest = (message: string) => new ApiError(400, message);
export const notFound = (message = 'Not found') => new ApiError(404, message);
export const forbidden = (message: string) => new ApiError(403, message);

/** One validation issue as a 422, for rules zod cannot express on its own (e.g. cross-field). */
export const invalid = (loc: (string | number)[], msg: string, type = 'value_error') => new ApiError(422, [{ loc, msg, type }]);

const codeOf = (err: Error): unknown => (err as { code?: unknown }).code ?? (err.cause as { code?: unknown } | undefined)?.code;

/** PostgreSQL 57014 query_canceled: the statement_timeout of this path fired (shared/db/timeout.ts). */
export const isStatementTimeout = (err: Error): boolean => codeOf(err) === '57014';

/** Seconds a caller waits after a statement timeout before the same request (the `computing` pace). */
export const STATEMENT_TIMEOUT_RETRY_AFTER = '15';

/** Connection-level failures (not bad queries): the network, or Postgres refusing connections. */
function isDependencyOutage(err: Error): boolean {
  const code = codeOf(err);
  if (typeof code === 'string' && /^(08|53|57P)/.test(code)) return true;
  const text = `${err.message} ${(err.cause as Error | undefined)?.message ?? ''}`;
  return /fetch failed|network connection lost|ECONNREFUSED|connect ECONN|timed? ?out|socket hang up/i.test(text);
}

/** The `{code, message}` error's code, or undefined (another shape, or not an ApiError). */
export const apiCodeOf = (err: unknown): string | undefined =>
  err instanceof ApiError && typeof err.detail === 'object' && !Array.isArray(err.detail) ? err.detail.code : undefined;

/** `c.var.outage` (shared/env.ts Variables), set without importing the env module, which imports this one's importers. */
const markOutage = (c: Context) => (c as Context<{ Variables: { outage: true } }>).set('outage', true);

/** 503 codes that mean a dependency could not be reached (not `computing`, not configuration). */
const OUTAGE_CODES: ReadonlySet<string> = new Set<string>([
  'entitlement_unavailable',
  'scope_unavailable',
  'dependency_unavailable',
] satisfies ErrorCode[]);

/**
 * The error's answer. A dependency outage's 503 is marked (`c.var.outage`): only those, never a
 * `computing` 503 or any answer the database gave, are replaced by a stale copy (shared/stale).
 */
export function onError(err: Error, c: Context): Response {
  if (err instanceof ApiError) {
    if (err.status === 503 && OUTAGE_CODES.has(apiCodeOf(err) ?? '')) markOutage(c);
    return c.json({ detail: err.detail }, err.status, err.headers);
  }
  if (err instanceof HTTPException) {
    // e.g. hono's JSON body parser: malformed JSON is the client's fault.
    const status = err.status === 400 ? 422 : err.status;
    const detail = status === 422 ? [{ loc: ['body'], msg: err.message || 'Malformed JSON body', type: 'json_invalid' }] : err.message;
    return c.json({ detail }, status as ContentfulStatusCode);
  }
  if (isStatementTimeout(err)) {
    // Before the outage test (whose text match would take "statement timeout" for a network time-out):
    // the database answered, so this is no outage and no stale copy replaces it.
    log(levelOf((c.env as { LOG_LEVEL?: unknown } | undefined)?.LOG_LEVEL), 'warn', 'statement timeout', {
      request_id: c.get('requestId') ?? null,
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      code: '57014',
    });
    const timeout = coded(
      'query_timeout',
      'The query ran longer than this API allows and was cancelled; retry after the Retry-After header, or ask for less (fewer values, a shorter window)',
      {},
      { 'Retry-After': STATEMENT_TIMEOUT_RETRY_AFTER },
    );
    return c.json({ detail: timeout.detail }, timeout.status, timeout.headers);
  }
  if (isDependencyOutage(err)) {
    console.error('dependency unavailable', err.message);
    // shared/stale may answer this request from its last good copy instead.
    markOutage(c);
    return c.json({ detail: 'A dependency is briefly unavailable; retry after the Retry-After header' }, 503, { 'Retry-After': '5' });
  }
  console.error('unhandled error', err);
  return c.json({ detail: 'Internal server error' }, 500);
}

export function onNotFound(c: Context): Response {
  return c.json({ detail: `No route for ${c.req.method} ${new URL(c.req.url).pathname}` }, 404);
}
