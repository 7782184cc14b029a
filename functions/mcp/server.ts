// The MCP server behind one POST /mcp: the official SDK's protocol engine (initialize, ping,
// tools/list, tools/call, JSON-RPC errors and batches) over its web-standard Streamable HTTP
// transport, stateless (no session) and answering in JSON. A server and a transport live for one
// request only: a Worker isolate serves concurrent requests, and a stateless transport is single-use.
//
// The low-level `Server` rather than `McpServer`: McpServer takes zod schemas and validates
// arguments itself, while our tools carry the JSON Schema of their REST route's parameters and
// leave validation to the route (one validator, one 422 shape).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import type { McpTool } from './tools';

/** JSON-RPC bodies are small; anything larger is refused (413) before it is parsed. */
const MAX_BODY_BYTES = 64 * 1024;

const INSTRUCTIONS =
  'Read-only analytics about articles that surface in a content-discovery feed, per country and language: ' +
  'tracking lists with their metrics, roll-ups and keyword matches, articles, category analytics and geo reference data. ' +
  'Every tool runs the REST API route named in its description with your key, so the same market scope, plan limits and ' +
  "errors apply; a failed call returns the API's JSON error (`detail`). Each tool call counts as one request of the " +
  'monthly quota shared with the REST API (get_usage shows it and spends none). An error with code `computing` means the ' +
  'aggregate is being computed: repeat the identical call after the seconds its message names.';

export interface McpOptions {
  info: { name: string; title: string; version: string };
  /** The catalog, asked for on tools/list only (initialize, ping and tools/call do not build it). */
  tools(): Promise<McpTool[]>;
  /** Runs the named tool; undefined when no tool has that name. */
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult> | undefined;
}

function createServer({ info, tools, call }: McpOptions): Server {
  // The default validator, Ajv, compiles schemas with `new Function`, which workerd refuses; the SDK's
  // Workers validator interprets them instead (none is used today: no elicitation, no output schemas).
  const server = new Server(info, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await tools()).map(({ name, title, description, inputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const result = call(request.params.name, request.params.arguments ?? {});
    if (!result) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return result;
  });
  return server;
}

/**
 * This server never streams (`enableJsonResponse`): a client that accepts JSON but does not name
 * `text/event-stream` (a plain HTTP client, a generated contract test) gets the same JSON answer
 * instead of the SDK's 406. A client that refuses JSON still gets 406.
 */
function acceptingJson(request: Request): Request {
  const accept = request.headers.get('accept') ?? '';
  if (request.method !== 'POST' || accept.includes('text/event-stream') || !/application\/json|\*\/\*/.test(accept)) return request;
  const headers = new Headers(request.headers);
  headers.set('accept', 'application/json, text/event-stream');
  return new Request(request, { headers });
}

/** Answers one Streamable HTTP request (a JSON-RPC message or batch). */
export async function serveMcp(request: Request, options: McpOptions): Promise<Response> {
  const server = createServer(options);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(acceptingJson(request));
  } finally {
    await server.close();
  }
}
