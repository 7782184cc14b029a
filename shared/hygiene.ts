// Input hygiene at the edge, before auth and before any query: the raw URL's path and query must be
// valid percent-encoded UTF-8 without control characters (PostgreSQL refuses NUL in text, and a
// driver error would otherwise surface as a 500), every value is capped, and so is the number of
// parameters. Failures answer the spec's 422 `{detail: [{loc, msg, type}]}`. Route schemas still
// check types, ranges and their own tighter caps; repeated parameters that a route does not declare
// as repeatable arrive at its zod schema as an array and fail there as a 422 too.
import type { MiddlewareHandler } from 'hono';
import { ApiError, type ValidationIssue } from './errors';

/** Longest accepted value of any one query parameter (route schemas may cap lower). */
export const MAX_PARAM_LENGTH = 2_048;
/** Longest accepted path segment (ids are far shorter). */
export const MAX_SEGMENT_LENGTH = 256;
/** Most query parameters one request may carry. */
export const MAX_PARAMS = 64;

// C0 controls and DEL, except tab, line feed and carriage return (harmless in free text).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

function decode(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined; // malformed percent-encoding, or bytes that are not UTF-8
  }
}

/** Printable form of a raw (still encoded) name for `loc`, bounded. */
const label = (raw: string) => (decode(raw) ?? raw).replace(CONTROL, '?').slice(0, 64);

function checkValue(loc: (string | number)[], raw: string, max: number): ValidationIssue | undefined {
  const value = decode(raw);
  if (value === undefined) return { loc, msg: 'Invalid percent-encoding or UTF-8', type: 'value_error' };
  if (CONTROL.test(value)) return { loc, msg: 'Control characters (such as NUL) are not allowed', type: 'value_error' };
  if (value.length > max) return { loc, msg: `Too long: at most ${max} characters`, type: 'string_too_long' };
  return undefined;
}

/** The issues of one raw URL (`pathname` and `search` as received, still percent-encoded). */
export function urlIssues(pathname: string, search: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const segment of pathname.split('/')) {
    const issue = checkValue(['path'], segment, MAX_SEGMENT_LENGTH);
    if (issue) issues.push(issue);
  }
  const pairs = search.replace(/^\?/, '').split('&').filter(Boolean);
  if (pairs.length > MAX_PARAMS) {
    issues.push({ loc: ['query'], msg: `Too many query parameters: at most ${MAX_PARAMS}`, type: 'too_long' });
  }
  for (const pair of pairs.slice(0, MAX_PARAMS)) {
    const eq = pair.indexOf('=');
    const rawName = (eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' ');
    const rawValue = (eq < 0 ? '' : pair.slice(eq + 1)).replace(/\+/g, ' ');
    const nameIssue = checkValue(['query'], rawName, 128);
    const issue = nameIssue ?? checkValue(['query', label(rawName)], rawValue, MAX_PARAM_LENGTH);
    if (issue) issues.push(issue);
  }
  // One issue per problem is enough; a hostile URL must not make a huge error body.
  return issues.slice(0, 10);
}

export function inputHygiene(): MiddlewareHandler {
  return async function inputHygiene(c, next) {
    const url = c.req.url;
    const start = url.indexOf('/', url.indexOf('//') + 2);
    const q = url.indexOf('?', start);
    const hash = url.indexOf('#', start);
    const end = hash < 0 ? url.length : hash;
    const pathname = url.slice(start, q < 0 ? end : q);
    const search = q < 0 ? '' : url.slice(q, end);
    const issues = urlIssues(pathname, search);
    if (issues.length) throw new ApiError(422, issues);
    await next();
  };
}
