// The MCP tools: each is one read-only GET route of the REST API. A tool's title, description and
// input schema are read from that route's operation in the OpenAPI document, which is generated
// from the route's own zod schemas, so the tool, the REST validation and /openapi.json cannot drift.

export interface ToolSpec {
  name: string;
  /** The REST route (OpenAPI path template) the tool runs. */
  path: string;
}

/** Names follow the MCP convention (snake_case verbs); paths are the routes' own. */
export const TOOL_SPECS: readonly ToolSpec[] = [
  { name: 'list_tracking_lists', path: '/v1/tracking/lists' },
  { name: 'get_tracking_list', path: '/v1/tracking/lists/{list_id}' },
  { name: 'get_tracking_list_metrics', path: '/v1/tracking/lists/{list_id}/metrics' },
  { name: 'get_tracking_list_rollup', path: '/v1/tracking/lists/{list_id}/rollup' },
  { name: 'get_mention_matches', path: '/v1/tracking/lists/{list_id}/matches' },
  { name: 'list_regions', path: '/v1/geo/regions' },
  { name: 'get_region', path: '/v1/geo/regions/{alpha_2}' },
  { name: 'list_languages', path: '/v1/geo/languages' },
  { name: 'search_articles', path: '/v1/articles' },
  { name: 'get_article', path: '/v1/articles/{id}' },
  { name: 'get_category_analytics', path: '/v1/analytics/categories' },
  { name: 'get_usage', path: '/v1/usage' },
  { name: 'list_trends', path: '/v1/trends' },
  { name: 'get_trend', path: '/v1/trends/{trend_id}' },
  { name: 'list_trend_articles', path: '/v1/trends/{trend_id}/articles' },
  { name: 'list_trend_parents', path: '/v1/trends/{trend_id}/parents' },
  { name: 'list_trend_children', path: '/v1/trends/{trend_id}/children' },
  { name: 'get_trend_rollup', path: '/v1/trends/{trend_id}/rollup' },
  { name: 'list_themes', path: '/v1/themes' },
  { name: 'list_theme_topics', path: '/v1/themes/{theme_id}/topics' },
  { name: 'list_topic_trends', path: '/v1/topics/{topic_id}/trends' },
  { name: 'list_entities', path: '/v1/entities' },
  { name: 'get_trending_entities', path: '/v1/entities/trending' },
  { name: 'get_entity', path: '/v1/entities/{entity_name}' },
  { name: 'list_entity_articles', path: '/v1/entities/{entity_name}/articles' },
  { name: 'check_publisher_profile', path: '/public/platform-profile' },
  { name: 'find_publisher_profiles', path: '/public/platform-profile/query' },
  { name: 'list_feed', path: '/v2/feed' },
  { name: 'list_live_feed', path: '/v2/live' },
  { name: 'get_url_profiles', path: '/v2/feed/{url_id}' },
];

type JsonSchema = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface Operation {
  summary?: string;
  description?: string;
  parameters?: Parameter[];
}

export interface OpenApiDoc {
  paths?: Record<string, { get?: Operation } | undefined>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, JsonSchema>; required: string[]; additionalProperties: false };
  annotations: { readOnlyHint: true; destructiveHint: false; idempotentHint: true; openWorldHint: false };
  path: string;
  /** Where each argument goes in the REST request. */
  locations: Map<string, 'path' | 'query'>;
}

/** Inlines `#/components/schemas/*` references: a tool's input schema must stand on its own. */
function inline(node: unknown, components: Record<string, JsonSchema>, depth = 0): unknown {
  if (Array.isArray(node)) return node.map((item) => inline(item, components, depth));
  if (!node || typeof node !== 'object') return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/') && depth < 8) {
    return inline(components[ref.slice('#/components/schemas/'.length)] ?? {}, components, depth + 1);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v, components, depth)]));
}

/** OpenAPI's `example` becomes JSON Schema's `examples`; the parameter's description wins. */
function argumentSchema(parameter: Parameter, components: Record<string, JsonSchema>): JsonSchema {
  const { example, ...schema } = (inline(parameter.schema ?? {}, components) as JsonSchema) ?? {};
  return {
    ...schema,
    ...(parameter.description && { description: parameter.description }),
    ...(example !== undefined && { examples: [example] }),
  };
}

/** The tool of `spec`, from a document that holds its route (the whole API's, or its own area app's). */
export function buildTool({ name, path }: ToolSpec, doc: OpenApiDoc): McpTool {
  const components = doc.components?.schemas ?? {};
  const operation = doc.paths?.[path]?.get;
  if (!operation) throw new Error(`MCP tool ${name}: no GET ${path} in the OpenAPI document`);
  // Tools answer JSON: the exports' `format` parameter is not theirs (docs/EXPORTS.md).
  const parameters = (operation.parameters ?? []).filter((p) => (p.in === 'path' || p.in === 'query') && p.name !== 'format');
  return {
    name,
    title: operation.summary ?? name,
    description:
      `${operation.description ?? operation.summary ?? ''}\n\nRuns GET ${path}${path.startsWith('/public/') ? ' (public, no key needed)' : ' with your key'}.`.trim(),
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(parameters.map((p) => [p.name, argumentSchema(p, components)])),
      required: parameters.filter((p) => p.required).map((p) => p.name),
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    path,
    locations: new Map(parameters.map((p) => [p.name, p.in as 'path' | 'query'])),
  };
}
