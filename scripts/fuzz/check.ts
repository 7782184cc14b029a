// The fuzz suite's oracle: what every response must satisfy, whatever the request was.
// - no 5xx other than 503 with Retry-After;
// - no stack trace or internal path in the body;
// - the status is documented for the operation;
// - an error body (4xx/5xx documented with JSON) has `detail`;
// - the body validates against the documented JSON Schema of its status (Ajv, JSON Schema 2020-12,
//   which OpenAPI 3.1 schemas are), with $refs resolved inside the served document;
// - every number in a JSON body is finite and every integer a safe integer, and every observation
//   time (`last_seen`, `first_seen`, ...) is not after the data's now (`propertyProblems`).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { Operation, Schema } from './generate';

export interface Observed {
  status: number;
  headers: Headers;
  text: string;
}

const STACK = /\n\s+at\s|\bat (?:async )?[\w$.<>]+ \(|node_modules\/|\.tsx?:\d+:\d+|\bTypeError\b|\bReferenceError\b/;

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Fields that say when something was observed: never after now. */
const OBSERVATION_TIMES = new Set([
  'first_seen',
  'last_seen',
  'first_seen_at',
  'article_first_seen_at',
  'last_article_at',
  'first_data_at',
  'refreshed_at',
  'last_scanned_at',
]);

/** The property test over any JSON body: numbers finite, integers safe, observation times not after `now` (ms). */
export function propertyProblems(body: unknown, now: number): string[] {
  const problems: string[] = [];
  // An explicit stack, not recursion: bodies can be deep.
  const stack: Array<[unknown, string]> = [[body, '']];
  while (stack.length && problems.length < 5) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) problems.push(`${path || '/'} = ${node} is not finite`);
      else if (Number.isInteger(node) && !Number.isSafeInteger(node)) problems.push(`${path || '/'} = ${node} is not a safe integer`);
    } else if (Array.isArray(node)) {
      for (const [i, v] of node.entries()) stack.push([v, `${path}/${i}`]);
    } else if (node !== null && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (OBSERVATION_TIMES.has(k) && typeof v === 'string' && Date.parse(v) > now) problems.push(`${path}/${k} = ${v} is after now`);
        stack.push([v, `${path}/${k}`]);
      }
    }
  }
  return problems;
}

/** `now`: the data's now (ms), for the observation-time property; omitted, it is not checked. */
export function createChecker(doc: Schema, now = Infinity) {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false });
  // Formats used by the API (ajv-formats is not needed for these four).
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  ajv.addFormat(
    'date-time',
    (s: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
  );
  ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
  ajv.addFormat('uri', (s: string) => URL.canParse(s));
  ajv.addFormat('url', (s: string) => URL.canParse(s));
  ajv.addFormat('email', /^[^@\s]+@[^@\s]+$/);
  ajv.addSchema(doc, 'openapi.json');
  const validators = new Map<string, ValidateFunction | null>();

  function validatorFor(op: Operation, status: string): ValidateFunction | null {
    const id = `${op.method} ${op.path} ${status}`;
    if (!validators.has(id)) {
      const schema = op.responses[status]?.content?.['application/json']?.schema;
      validators.set(
        id,
        schema
          ? ajv.compile({
              $ref: `openapi.json#/${pointer('paths', op.path, op.method.toLowerCase(), 'responses', status, 'content', 'application/json', 'schema')}`,
            })
          : null,
      );
    }
    return validators.get(id)!;
  }

  /** The problems of one response; empty when it is fine. */
  return function check(op: Operation, res: Observed): string[] {
    const problems: string[] = [];
    if (res.status >= 500 && !(res.status === 503 && Number(res.headers.get('retry-after')) > 0)) {
      problems.push(`server error ${res.status}${res.status === 503 ? ' without Retry-After' : ''}`);
    }
    if (STACK.test(res.text)) problems.push('stack trace or internal detail in the body');
    const status = String(res.status);
    const documented = op.responses[status] ?? op.responses.default;
    if (!documented) {
      problems.push(`undocumented status ${status}`);
      return problems;
    }
    const validate = validatorFor(op, op.responses[status] ? status : 'default');
    if (!validate) return problems; // documented without a JSON body (e.g. 202, MCP's JSON-RPC errors)
    const type = res.headers.get('content-type') ?? '';
    if (!/application\/json/.test(type)) {
      // Another representation the operation declares (the CSV and NDJSON exports): its media type is the contract.
      const declared = Object.keys(op.responses[status]?.content ?? {}).some((media) => type.split(';')[0].trim() === media);
      if (!declared) problems.push(`content-type ${type} instead of JSON`);
      return problems;
    }
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      problems.push('body is not JSON');
      return problems;
    }
    if (res.status >= 400 && (body === null || typeof body !== 'object' || !('detail' in body))) problems.push('error body without detail');
    problems.push(...propertyProblems(body, now));
    if (!validate(body)) {
      const errors = (validate.errors ?? [])
        .slice(0, 3)
        .map((e) => `${e.instancePath || '/'} ${e.message}`)
        .join('; ');
      problems.push(`body breaks the ${status} schema: ${errors}`);
    }
    return problems;
  };
}
