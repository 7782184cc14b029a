// Turns zod validation failures into the spec's 422 `{detail: [{loc, msg, type}]}`.
import type { Hook } from '@hono/zod-openapi';
import type { z } from 'zod';
import type { Clock } from '../time/clock';
import { futureDateError } from '../time/dates';
import { ApiError, type ValidationIssue } from './errors';

const locations: Record<string, string> = { param: 'path', json: 'body', form: 'body' };

function issueType(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return input === undefined ? 'missing' : `${issue.expected}_type`;
    case 'too_small':
      return issue.origin === 'string' ? 'string_too_short' : issue.origin === 'array' ? 'too_short' : 'greater_than_equal';
    case 'too_big':
      return issue.origin === 'string' ? 'string_too_long' : issue.origin === 'array' ? 'too_long' : 'less_than_equal';
    case 'invalid_value':
      return 'enum';
    case 'invalid_format':
      return issue.format === 'regex' ? 'string_pattern_mismatch' : `${issue.format}_parsing`;
    default:
      return 'value_error';
  }
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let node = root;
  for (const part of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[part];
  }
  return node;
}

export function toValidationIssues(target: string, error: z.ZodError, input: unknown): ValidationIssue[] {
  return error.issues.map((issue) => ({
    loc: [locations[target] ?? target, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    msg: issue.message,
    type: issueType(issue, valueAt(input, issue.path)),
  }));
}

/** Window bounds every route shares; checked here, against the request's clock, so no route can forget them. */
const DATE_PARAMS = ['date_from', 'date_to'] as const;

/** `date_from`/`date_to` past now plus the slack (shared/time/dates.ts): 422, before any query or job sees them. */
function futureDateIssues(data: unknown, now: Date): ValidationIssue[] {
  if (data === null || typeof data !== 'object') return [];
  const issues: ValidationIssue[] = [];
  for (const name of DATE_PARAMS) {
    const value = (data as Record<string, unknown>)[name];
    const msg = typeof value === 'string' ? futureDateError(value, now) : null;
    if (msg) issues.push({ loc: ['query', name], msg, type: 'value_error' });
  }
  return issues;
}

/** The app-wide defaultHook: every route's request validation fails the same way. */
// biome-ignore lint/suspicious/noExplicitAny: one hook serves every route, whatever its env, path and input types.
export const validationHook: Hook<unknown, any, any, any> = (result, c) => {
  if (!result.success) {
    const target = result.target;
    const input = target === 'query' ? c.req.query() : target === 'param' ? c.req.param() : undefined;
    throw new ApiError(422, toValidationIssues(target, result.error as z.ZodError, input));
  }
  if (result.target === 'query') {
    const clock = c.get('clock') as Clock | undefined;
    const issues = futureDateIssues(result.data, clock?.now() ?? new Date());
    if (issues.length > 0) throw new ApiError(422, issues);
  }
};
