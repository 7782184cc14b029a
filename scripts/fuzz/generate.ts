// Request generation for the OpenAPI fuzz suite, in the spirit of Schemathesis: valid values from
// each parameter's schema (enum, type, format, pattern's example, range), path ids from real data
// (harvested from the API's own list responses), and hostile mutations (NUL, bad encoding,
// over-long, huge numbers, wrong types, repeated parameters, foreign ids, bad keys and bodies).
// Deterministic for a seed.

import { HOSTILE } from './hostile';
import { UUID, type Rng } from './random';

export { prng, type Rng } from './random';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Schema = Record<string, any>;

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Parameter[];
  requestBody?: Schema;
  responses: Record<string, Schema>;
}

export interface FuzzRequest {
  op: Operation;
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** What was done to it, for failure reports. */
  mutation: string;
}

export function operationsOf(doc: Schema): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, Schema][]) {
    for (const [method, op] of Object.entries(item) as [string, Schema][]) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      ops.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId ?? `${method} ${path}`,
        parameters: [...(item.parameters ?? []), ...(op.parameters ?? [])],
        requestBody: op.requestBody?.content?.['application/json']?.schema,
        responses: op.responses ?? {},
      });
    }
  }
  return ops;
}

/** Values seen in responses, by field name (`id`, `list_id`, `alpha_2`, ...). */
export type Pools = Map<string, string[]>;

export function harvest(pools: Pools, body: unknown, limit = 50): void {
  const walk = (node: unknown, key?: string) => {
    if (Array.isArray(node)) {
      for (const n of node.slice(0, limit)) walk(n, key);
      return;
    }
    if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) walk(v, k);
      return;
    }
    if (key && (typeof node === 'string' || typeof node === 'number') && String(node).length <= 200) {
      const pool = pools.get(key) ?? [];
      if (pool.length < limit && !pool.includes(String(node))) pool.push(String(node));
      pools.set(key, pool);
    }
  };
  walk(body);
}

/** Real values for a parameter: same-named fields first, then `id` for `*_id`/`id` parameters. */
function poolFor(pools: Pools, name: string): string[] {
  const direct = pools.get(name);
  if (direct?.length) return direct;
  if (name === 'id' || name.endsWith('_id')) return pools.get('id') ?? [];
  return [];
}

function isoAround(rng: Rng, now: number): string {
  return new Date(now - rng.int(0, 40 * 24) * 3_600_000).toISOString();
}

/** A schema-valid value (as the string a query or path carries). */
export function validValue(rng: Rng, schema: Schema = {}, name: string, pools: Pools, now: number): string | string[] {
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return validValue(rng, rng.pick(options), name, pools, now);
  const real = poolFor(pools, name);
  if (real.length && rng.chance(0.8)) return rng.pick(real);
  if (schema.enum) return String(rng.pick(schema.enum));
  if (schema.type === 'array')
    return Array.from({ length: rng.int(1, 2) }, () => validValue(rng, schema.items, name, pools, now) as string);
  if (schema.type === 'boolean') return rng.pick(['true', 'false']);
  if (schema.type === 'integer' || schema.type === 'number') {
    const lo = schema.minimum ?? 0;
    const hi = Math.min(schema.maximum ?? 200, lo + 500);
    return String(rng.pick([schema.example ?? lo, schema.default ?? lo, lo, hi, rng.int(lo, hi)]));
  }
  if (schema.format === 'uuid') return UUID(rng);
  if (schema.format === 'date-time') return isoAround(rng, now);
  if (schema.format === 'date') return isoAround(rng, now).slice(0, 10);
  if (schema.example !== undefined && rng.chance(0.7)) return String(schema.example);
  if (schema.default !== undefined) return String(schema.default);
  return rng.pick(['a', 'news', 'Sports', 'de', 'heat pump', 'US']);
}

export interface Keys {
  full: string;
  others: { name: string; key: string }[];
}

/** A sweep's fixed choice: this parameter gets this hostile value, path ids cycle through real ones. */
export interface Forced {
  param: string;
  kind: number;
  /** Index into the real ids of each path parameter (cycled). */
  pathIndex: number;
}

/**
 * The systematic part: every parameter of every operation with every hostile value once, path ids
 * cycling through the real ones (so routes that only reach their queries for one kind of resource,
 * e.g. mention lists, get hostile values there too).
 */
export function sweep(rng: Rng, ops: Operation[], pools: Pools, keys: Keys, now: number): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  for (const op of ops) {
    const ids = Math.max(1, ...op.parameters.filter((x) => x.in === 'path').map((x) => Math.min(10, poolFor(pools, x.name).length)));
    for (const p of op.parameters.filter((x) => x.in === 'query' || x.in === 'path')) {
      HOSTILE.forEach(([name], kind) => {
        // NUL is the value most likely to reach SQL: try it against every real resource of the path.
        for (let i = 0; i < (name === 'nul' ? ids : 1); i++) {
          out.push(makeRequest(rng, op, pools, keys, now, 0, { param: p.name, kind, pathIndex: name === 'nul' ? i : kind }));
        }
      });
    }
  }
  return out;
}

/** One request: valid (most), or with one hostile mutation (or the `forced` one). */
export function makeRequest(
  rng: Rng,
  op: Operation,
  pools: Pools,
  keys: Keys,
  now: number,
  hostileShare = 0.4,
  forced?: Forced,
): FuzzRequest {
  const query: [string, string][] = [];
  const path: Record<string, string> = {};
  const hostile = !forced && rng.chance(hostileShare);
  const mutation = forced ? 'param' : hostile ? rng.pick(['param', 'param', 'param', 'repeat', 'extra', 'key', 'body']) : 'valid';
  const target =
    forced?.param ??
    rng.pick(
      op.parameters
        .filter((p) => p.in === 'query' || p.in === 'path')
        .map((p) => p.name)
        .concat(['']),
    );
  let label = mutation;
  for (const p of op.parameters) {
    if (p.in !== 'query' && p.in !== 'path') continue;
    const include = p.in === 'path' || p.required || (!forced && rng.chance(0.5)) || (mutation === 'param' && p.name === target);
    if (!include) continue;
    let value: string | string[] = validValue(rng, p.schema, p.name, pools, now);
    const real = poolFor(pools, p.name);
    if (forced && p.in === 'path' && real.length) value = real[forced.pathIndex % real.length];
    if (p.in === 'path' || !Array.isArray(value)) value = [value].flat().map((v) => encodeURIComponent(v));
    else value = value.map((v) => encodeURIComponent(v));
    if (mutation === 'param' && p.name === target) {
      const [kind, make] = forced ? HOSTILE[forced.kind] : rng.pick(HOSTILE);
      value = [make(rng, value[0] ?? '')];
      label = `param ${p.name}=${kind}`;
    }
    if (p.in === 'path') path[p.name] = value[0];
    else for (const v of value) query.push([p.name, v]);
  }
  if (mutation === 'repeat' && query.length) {
    query.push(rng.pick(query));
    label = `repeat ${query[query.length - 1][0]}`;
  }
  if (mutation === 'extra') query.push([rng.pick(['x', 'debug', 'key', 'api_key']), rng.pick(HOSTILE)[1](rng, 'value')]);
  const url =
    op.path.replace(/\{([^}]+)\}/g, (_, name: string) => path[name] ?? UUID(rng)) +
    (query.length ? `?${query.map(([k, v]) => `${k}=${v}`).join('&')}` : '');
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  let key: string | undefined = keys.full;
  if (mutation === 'key') {
    const choice = rng.int(0, keys.others.length + 2);
    key = choice < keys.others.length ? keys.others[choice].key : choice === keys.others.length ? undefined : 'sk_live_not_a_key';
    label = `key ${choice < keys.others.length ? keys.others[choice].name : key ? 'invalid' : 'none'}`;
  }
  if (key) {
    if (rng.chance(0.5)) headers['x-api-key'] = key;
    else headers.authorization = `Bearer ${key}`;
  }
  let body: string | undefined;
  if (op.requestBody) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(op.requestBody.example ?? {});
    if (mutation === 'body') {
      body = rng.pick([
        '{',
        '',
        'null',
        '[]',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{"x":"\\u0000"}}}',
        JSON.stringify({ jsonrpc: '2.0', id: 'x'.repeat(10_000), method: 'ping' }),
        '"\\ud800"',
      ]);
      label = `body ${body.slice(0, 40)}`;
    }
  }
  return { op, url, method: op.method, headers, body, mutation: label };
}
