// Every area in one app: local development, tests, and the single OpenAPI document.
import { Scalar } from '@scalar/hono-api-reference';
import { createApp, type App } from '../shared/http/app';
import { observe } from '../shared/observability/middleware';
import { completeDocument } from '../shared/schemas/document';
import type { Env } from '../shared/env';
import { areaApp } from '../shared/http/area-app';
import { loadModules, optionsOf } from '../shared/http/route-table';
import { OPENAPI_INFO, OPENAPI_TAGS } from './api-info';
import { mcpRoutes } from './mcp/routes';
import { REST_ROUTE_TABLES } from './route-tables';
import type { RouteTable } from '../shared/http/route-table';

/** Served from `assets/` (wrangler.toml [assets]), copied there from @scalar/api-reference. */
export const SCALAR_BUNDLE = '/docs/scalar/standalone.js';

/** Every area's route table, in the app's order; MCP last, its tool calls run the REST routes. */
export const ROUTE_TABLES: readonly RouteTable[] = [...REST_ROUTE_TABLES, mcpRoutes];

/**
 * Every area with all its routes. Async: the tables hold loaders, so that a deployed area Worker
 * loads each route on first use (shared/http/lazy-area.ts); here every module is loaded, then all are
 * registered in table order.
 */
export async function apiApp() {
  const areas = await Promise.all(
    ROUTE_TABLES.map(async (table) => ({
      table,
      options: await optionsOf(table),
      modules: await loadModules(table),
    })),
  );
  const app = createApp();
  // Paths outside every area (404s, /openapi.json, /docs) get their request id and log line too.
  app.use('*', observe());
  for (const { table, options, modules } of areas) app.route('/', areaApp(table, options, modules));
  return app;
}

/** The served document: the routes' contracts completed by the shared rules (shared/schemas/document.ts). */
export function openApiDocument(app: App) {
  // A relative server: the host that serves this document (local, staging or production) serves its API.
  const doc = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: OPENAPI_INFO,
    servers: [{ url: '/', description: 'The server of this document' }],
    tags: OPENAPI_TAGS,
  });
  return completeDocument(doc, app.openAPIRegistry);
}

const LOOPBACK: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * "Try it" with the demo key `npm start` printed: only when scripts/dev.ts set DOCS_DEMO_KEY and the
 * page is served on a loopback address, so a deployed Worker never hands out a key.
 */
function demoAuthentication(key: string | undefined, url: string) {
  if (!key || !LOOPBACK.has(new URL(url).hostname)) return {};
  return { authentication: { preferredSecurityScheme: 'ApiKeyHeader', securitySchemes: { ApiKeyHeader: { value: key } } } };
}

/** apiApp plus /openapi.json and /docs: local development (index.ts), tests, the MCP Worker and the OpenAPI export. */
export async function combinedApp() {
  const app = await apiApp();
  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKeyHeader', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'Project, internal or legacy API key.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'BearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'The same key as a bearer token.',
  });
  app.get('/openapi.json', (c) => c.json(openApiDocument(app)));
  // The reference UI's bundle comes from this deployment's static assets (scripts/assets.ts), not a
  // CDN, and no web fonts are fetched: /docs renders without internet access.
  app.get(
    '/docs',
    Scalar<Env>((c) => ({
      url: '/openapi.json',
      pageTitle: 'Discovery analytics API',
      cdn: SCALAR_BUNDLE,
      withDefaultFonts: false,
      ...demoAuthentication(c.env.DOCS_DEMO_KEY, c.req.url),
    })),
  );
  app.get('/', (c) => c.redirect('/docs'));
  return app;
}
