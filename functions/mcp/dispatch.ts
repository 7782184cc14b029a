// A tool call runs its REST route in-process on the route's area app (catalog.ts), with the caller's own key
// headers: authentication, plan gates, market scope, history clamping, validation, caching, quota
// and errors are the route's own. The inner request is marked as MCP through its env
// (shared/limits/channel.ts), never through anything an HTTP caller could send.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'hono';
import type { App } from '../../shared/http/app';
import type { Bindings } from '../../shared/env';
import type { Detail, ValidationIssue } from '../../shared/http/errors';
import type { McpTool } from './tools';

/** Where a tool call of one POST /mcp runs. */
export interface DispatchTarget {
  /** The area app holding the tool's route. */
  app: App;
  /** The Worker's bindings with the POST's MCP mark (mcpEnv). */
  env: Bindings;
  ctx: Context['executionCtx'];
  origin: string;
  /** The caller's `X-API-Key` / `Authorization` headers and client address, and nothing else. */
  credentials: Headers;
}

const KEY_HEADERS = ['x-api-key', 'authorization'];

export function credentialsOf(headers: Headers, requestId?: string): Headers {
  const credentials = new Headers();
  if (requestId) credentials.set('X-Request-Id', requestId);
  // The caller's address too: the public tools are limited per client IP, as their REST routes.
  for (const name of [...KEY_HEADERS, 'cf-connecting-ip']) {
    const value = headers.get(name);
    if (value !== null) credentials.set(name, value);
  }
  return credentials;
}

/** A tool result carrying a REST body verbatim; `isError` for any status but 2xx; the request id in `_meta`. */
function result(text: string, isError: boolean, requestId?: string | null): CallToolResult {
  return { content: [{ type: 'text', text }], isError, ...(requestId ? { _meta: { request_id: requestId } } : {}) };
}

/** Argument problems found before the route runs, in the route's own 422 shape. */
const invalidArguments = (issues: ValidationIssue[]) => result(JSON.stringify({ detail: issues satisfies Detail }), true);

const queryValue = (value: unknown) => (typeof value === 'object' ? JSON.stringify(value) : String(value));

/** Path and query of the REST request, or the issues when the arguments cannot be placed. */
function restTarget(tool: McpTool, args: Record<string, unknown>): { url: string } | { issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  for (const name of Object.keys(args)) {
    if (!tool.locations.has(name))
      issues.push({ loc: ['arguments', name], msg: `Unknown argument for ${tool.name}`, type: 'extra_forbidden' });
  }
  const path = tool.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = args[name];
    if (value === undefined || value === null || value === '') {
      issues.push({ loc: ['path', name], msg: 'Field required', type: 'missing' });
      return '_';
    }
    // `.` and `..` would be resolved away by URL parsing and reach another route.
    if (/^\.+$/.test(String(value))) {
      issues.push({ loc: ['path', name], msg: 'Not a valid path segment', type: 'value_error' });
      return '_';
    }
    return encodeURIComponent(String(value));
  });
  if (issues.length) return { issues };
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) {
    if (tool.locations.get(name) !== 'query' || value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) query.append(name, queryValue(item));
  }
  const search = query.toString();
  return { url: search ? `${path}?${search}` : path };
}

/** Runs the tool's route with the caller's key and returns its JSON body as the tool result. */
export async function runTool(target: DispatchTarget, tool: McpTool, args: Record<string, unknown>): Promise<CallToolResult> {
  const placed = restTarget(tool, args);
  if ('issues' in placed) return invalidArguments(placed.issues);
  const request = new Request(new URL(placed.url, target.origin), { method: 'GET', headers: target.credentials });
  const response = await target.app.fetch(request, target.env, target.ctx);
  return result(await response.text(), !response.ok, response.headers.get('X-Request-Id'));
}
