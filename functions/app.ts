// Every area in one app: local development, tests, and the single OpenAPI document.
import { Scalar } from '@scalar/hono-api-reference';
import { createApp, type App } from '../shared/app';
import { observe } from '../shared/observability/middleware';
import { completeDocument } from '../shared/schemas/document';
import type { Env } from '../shared/env';
import { articlesArea } from './articles/app';
import { entitiesArea } from './entities/app';
import { feedArea } from './feed/app';
import { geoArea } from './geo/app';
import { mcpArea } from './mcp/app';
import { publicArea } from './public/app';
import { trackingArea } from './tracking/app';
import { trendsArea } from './trends/app';

/** Served from `assets/` (wrangler.toml [assets]), copied there from @scalar/api-reference. */
export const SCALAR_BUNDLE = '/docs/scalar/standalone.js';

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
  { name: 'Tracking lists', description: 'Lists of entities, categories, publishers, trends or mentions a project follows, with their metrics and roll-ups.' },
  { name: 'Account', description: 'The key\'s plan, limits and usage.' },
  { name: 'Feed', description: 'Publications in the feed per market, with their impressions and positions.' },
  { name: 'Public profile check', description: 'No key: publisher profile checks and the embeddable widget.' },
  { name: 'Geo', description: 'Markets: countries, their cities and languages.' },
  { name: 'Trends', description: 'Trends and the theme/topic hierarchy above them.' },
  { name: 'Entities', description: 'Named entities in the articles, and which are trending.' },
  { name: 'Articles', description: 'Articles and their metadata.' },
  { name: 'Analytics', description: 'Category analytics over windows.' },
  { name: 'MCP', description: 'The same reads as MCP tools (Streamable HTTP).' },
];

/** Every area and the MCP endpoint, whose tool calls run this same app's REST routes in-process. */
export function apiApp() {
  const app = createApp();
  // Paths outside every area (404s, /openapi.json, /docs) get their request id and log line too.
  app.use('*', observe());
  for (const area of [trackingArea(), feedArea(), publicArea(), geoArea(), trendsArea(), entitiesArea(), articlesArea()]) {
    app.route('/', area);
  }
  app.route('/', mcpArea(app, { title: OPENAPI_INFO.title, version: OPENAPI_INFO.version }));
  return app;
}

/** The served document: the routes' contracts completed by the shared rules (shared/schemas/document.ts). */
export function openApiDocument(app: App) {
  // A relative server: the host that serves this document (local, staging or production) serves its API.
  const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: OPENAPI_INFO, servers: [{ url: '/', description: 'The server of this document' }], tags: OPENAPI_TAGS });
  return completeDocument(doc, app.openAPIRegistry);
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * "Try it" with the demo key `npm start` printed: only when scripts/dev.ts set DOCS_DEMO_KEY and the
 * page is served on a loopback address, so a deployed Worker never hands out a key.
 */
function demoAuthentication(key: string | undefined, url: string) {
  if (!key || !LOOPBACK.has(new URL(url).hostname)) return {};
  return { authentication: { preferredSecurityScheme: 'ApiKeyHeader', securitySchemes: { ApiKeyHeader: { value: key } } } };
}

/** apiApp plus /openapi.json and /docs: local development, tests and the OpenAPI export. */
export function combinedApp() {
  const app = apiApp();
  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKeyHeader', {
    type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Project, internal or legacy API key.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'BearerAuth', {
    type: 'http', scheme: 'bearer', description: 'The same key as a bearer token.',
  });
  app.get('/openapi.json', (c) => c.json(openApiDocument(app)));
  // The reference UI's bundle comes from this deployment's static assets (scripts/assets.ts), not a
  // CDN, and no web fonts are fetched: /docs renders without internet access.
  app.get('/docs', Scalar<Env>((c) => ({
    url: '/openapi.json', pageTitle: 'Discovery analytics API', cdn: SCALAR_BUNDLE, withDefaultFonts: false, ...demoAuthentication(c.env.DOCS_DEMO_KEY, c.req.url),
  })));
  app.get('/', (c) => c.redirect('/docs'));
  return app;
}
