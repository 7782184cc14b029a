// Input hygiene at the edge, before auth and before any query: the raw URL's path and query must be
// valid percent-encoded UTF-8 without control characters (PostgreSQL refuses NUL in text, and a
// driver error would otherwise surface as a 500), every value is capped, and so is the number of
// parameters; a JSON body must be UTF-8 whose strings carry no control characters or lone surrogates. Failures answer the spec's 422 `{detail: [{loc, msg, type}]}`. Route schemas still
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
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's purpose.
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

// A UTF-16 surrogate without its partner: not text, and PostgreSQL refuses it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The first string (key or value) of a JSON document that is not clean text, with its location.
 * Walked with an explicit stack, not recursion: JSON nested thousands deep must not overflow the
 * Worker's stack (a pre-auth 500). Only strings are tested, in document order.
 */
function jsonIssue(root: unknown, rootLoc: (string | number)[]): ValidationIssue | undefined {
  const bad = (text: string) => CONTROL.test(text) || LONE_SURROGATE.test(text);
  // Each entry links to its parent's path, so depth costs one object per level, not a copied array.
  type Path = { key: string | number; parent: Path | null } | null;
  const locOf = (path: Path, last?: string | number) => {
    const loc: (string | number)[] = last === undefined ? [] : [last];
    for (let p = path; p; p = p.parent) loc.push(p.key);
    return [...rootLoc, ...loc.reverse()].slice(0, 64);
  };
  const stack: { node: unknown; path: Path }[] = [{ node: root, path: null }];
  while (stack.length) {
    const { node, path } = stack.pop()!;
    if (typeof node === 'string') {
      if (bad(node))
        return { loc: locOf(path), msg: 'Control characters (such as NUL) and lone surrogates are not allowed', type: 'value_error' };
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ node: node[i], path: { key: i, parent: path } });
    } else if (node && typeof node === 'object') {
      const entries = Object.entries(node);
      for (const [key] of entries) {
        if (bad(key))
          return {
            loc: locOf(path, key.replace(CONTROL, '?').slice(0, 64)),
            msg: 'Control characters (such as NUL) are not allowed in keys',
            type: 'value_error',
          };
      }
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ node: entries[i]![1], path: { key: entries[i]![0], parent: path } });
    }
  }
  return undefined;
}

/** A JSON body's issue: not UTF-8, or a string that is not clean text. Unparsable JSON is the route's to report. */
export async function bodyIssue(request: Request): Promise<ValidationIssue | undefined> {
  const bytes = await request.arrayBuffer();
  // Bounded already: shared/http/body-limits.ts refused anything over the route's limit unread.
  if (!bytes.byteLength) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return { loc: ['body'], msg: 'The body is not valid UTF-8', type: 'value_error' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return jsonIssue(parsed, ['body']);
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
    // JSON bodies too (read from a clone: the route still reads the original stream).
    if (c.req.raw.body && /json/i.test(c.req.header('content-type') ?? '')) {
      const issue = await bodyIssue(c.req.raw.clone());
      if (issue) throw new ApiError(422, [issue]);
    }
    await next();
  };
}
