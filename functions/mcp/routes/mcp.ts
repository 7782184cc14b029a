// POST /mcp: the MCP endpoint (Streamable HTTP, stateless, JSON responses). Key, plan gate
// (`mcp_not_in_plan`) and per-minute limit run before any message is read (shared/http/app.ts); the
// POST spends no quota itself, each tools/call spends one through the REST route it runs.
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { OPENAPI_INFO } from '../../api-info';
import { ApiError, invalid } from '../../../shared/http/errors';
import { McpPost, mcpEnv } from '../../../shared/limits/channel';
import { MCP_BODY_MAX_BYTES } from '../options';
import { errorResponses, keyed, tooLargeResponse } from '../../../shared/schemas/common';
import { allTools, toolSite } from '../catalog';
import { credentialsOf, runTool } from '../dispatch';
import { serveMcp } from '../server';

/**
 * Most messages in one JSON-RPC batch. Its tool calls share the POST's per-minute hit, so without a cap
 * one request could carry hundreds of heavy reads; more is 422 before any message runs.
 */
export const MCP_MAX_BATCH = 20;

/** The number of messages when the body is a JSON-RPC batch (already bounded to 256 KiB), else 0. */
async function batchSize(request: Request): Promise<number> {
  try {
    const text = await request.clone().text();
    if (!text.trimStart().startsWith('[')) return 0; // one message: nothing to count, nothing parsed twice
    const body: unknown = JSON.parse(text);
    return Array.isArray(body) ? body.length : 0;
  } catch {
    return 0; // not JSON: the transport answers its own JSON-RPC parse error
  }
}

/** JSON-RPC 2.0 as plain OpenAPI schemas: documented, not validated (the transport answers JSON-RPC errors). */
export { MCP_BODY_MAX_BYTES } from '../options';

const jsonRpc = (description: string, example: object) => {
  const message = { type: 'object' as const, properties: { jsonrpc: { type: 'string' as const, enum: ['2.0'] } }, required: ['jsonrpc'] };
  return { description, anyOf: [message, { type: 'array' as const, items: message, maxItems: MCP_MAX_BATCH }], example };
};

const route = createRoute({
  method: 'post',
  path: '/mcp',
  operationId: 'mcp',
  tags: ['MCP'],
  summary: 'MCP server (Streamable HTTP)',
  description:
    'Model Context Protocol endpoint for AI clients (Claude, Cursor, the MCP Inspector): JSON-RPC 2.0 messages over ' +
    'Streamable HTTP, stateless (no session), answered in JSON (`Accept: application/json` is enough; `text/event-stream` may be named too), with ' +
    'your key as for every route. `tools/list` names the read-only tools, one per GET route of this API (tracking lists, ' +
    'metrics, roll-ups, matches, articles, category analytics, geo, usage); `tools/call` runs that route with your key, ' +
    'so its scope, plan gates and errors apply (an error comes back as a tool result with `isError: true` and the ' +
    "route's `{detail}` body). The body is at most 256 KiB (otherwise 413, before the key is checked); a batch carries at most " +
    MCP_MAX_BATCH +
    ' messages (otherwise 422 before any runs). Each `tools/call` counts as one request of the monthly quota shared with the REST API; ' +
    '`initialize`, `tools/list` and `ping` spend none. 403 `mcp_not_in_plan` when MCP access is switched off for the project.',
  security: keyed,
  request: {
    body: {
      required: true,
      description: 'A JSON-RPC 2.0 request or notification (`initialize`, `tools/list`, `tools/call`, `ping`, ...).',
      content: {
        'application/json': {
          schema: jsonRpc('A JSON-RPC 2.0 message, or a batch of them.', { jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        },
      },
    },
  },
  responses: {
    200: {
      description: 'The JSON-RPC response (an array for a batch).',
      content: {
        'application/json': {
          schema: jsonRpc('The JSON-RPC 2.0 response, or an array of them for a batch.', {
            jsonrpc: '2.0',
            id: 1,
            result: { content: [{ type: 'text', text: '{"regions":[],"total":0}' }], isError: false },
          }),
        },
      },
    },
    202: { description: 'Accepted: the body held only notifications (e.g. `notifications/initialized`).' },
    ...errorResponses(401, 402, 403, 422, 429, 503),
    413: tooLargeResponse(MCP_BODY_MAX_BYTES),
    400: { description: 'Malformed JSON or not a JSON-RPC message: a JSON-RPC error body (`-32700`, `-32600`).' },
    406: { description: '`Accept` excludes `application/json`: a JSON-RPC error body.' },
  },
});

/** Each tool runs its REST route in that route's own area app (catalog.ts), in whichever app /mcp is mounted. */
export function register(area: App) {
  area.openapi(route, async (c) => {
    const size = await batchSize(c.req.raw);
    if (size > MCP_MAX_BATCH) throw invalid(['body'], `At most ${MCP_MAX_BATCH} messages in one JSON-RPC batch (got ${size})`, 'too_long');
    // Tool calls share this POST's per-minute hit (the first one) and report their limits back.
    const post = new McpPost(c.var.limits.minute);
    const target = {
      env: mcpEnv(c.env, post),
      ctx: c.executionCtx,
      origin: new URL(c.req.url).origin,
      // Each tool call's inner request carries this POST's request id: one id across the log lines.
      credentials: credentialsOf(c.req.raw.headers, c.var.requestId),
    };
    const response = await serveMcp(c.req.raw, {
      info: { name: 'discovery-analytics-api', title: OPENAPI_INFO.title, version: OPENAPI_INFO.version },
      tools: allTools,
      call: (name, args) => toolSite(name)?.then(({ tool, app }) => runTool({ ...target, app }, tool, args)),
    });
    if (post.latest) c.set('limits', post.latest);
    return response;
  });
  // No SSE stream to open and no session to delete: the transport's answer for both is 405.
  area.on(['GET', 'DELETE'], '/mcp', () => {
    throw new ApiError(405, 'This MCP endpoint is stateless and answers in JSON: POST JSON-RPC messages to /mcp.', { Allow: 'POST' });
  });
}
