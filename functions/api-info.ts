// The API's name, version and tags: the OpenAPI document's (combined-app.ts) and the MCP server's
// (mcp/routes/mcp.ts).

export const OPENAPI_INFO = {
  title: 'Discovery analytics API',
  version: '1.0.0',
  description:
    'Read-only analytics about articles that surface in a content-discovery feed across countries and languages. ' +
    'Send your key as `X-API-Key: <key>` or `Authorization: Bearer <key>`; query-string keys are refused. ' +
    'Errors are JSON with a `detail` field: a message, a `{code, message}` object, or (422) a list of `{loc, msg, type}`. ' +
    'Every example in this document is an id or value of the demo data set that `npm start` serves.',
  contact: { name: 'Discovery analytics API team', url: 'https://app.example.com/support', email: 'api@example.com' },
  license: { name: 'Proprietary', url: 'https://app.example.com/terms' },
};

/** The operations' tags, in the order the reference shows them. */
export const OPENAPI_TAGS = [
  {
    name: 'Tracking lists',
    description: 'Lists of entities, categories, publishers, trends or mentions a project follows, with their metrics and roll-ups.',
  },
  { name: 'Account', description: "The key's plan, limits and usage." },
  { name: 'Feed', description: 'Publications in the feed per market, with their impressions and positions.' },
  { name: 'Public profile check', description: 'No key: publisher profile checks and the embeddable widget.' },
  { name: 'Geo', description: 'Markets: countries, their cities and languages.' },
  { name: 'Trends', description: 'Trends and the theme/topic hierarchy above them.' },
  { name: 'Entities', description: 'Named entities in the articles, and which are trending.' },
  { name: 'Articles', description: 'Articles and their metadata.' },
  { name: 'Analytics', description: 'Category analytics over windows.' },
  { name: 'MCP', description: 'The same reads as MCP tools (Streamable HTTP).' },
];
