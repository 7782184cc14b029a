// Every area in one app: local development, tests, and the single OpenAPI document.
import { Scalar } from '@scalar/hono-api-reference';
import { createApp } from '../shared/app';
import { observe } from '../shared/observability/middleware';
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
    'Errors are JSON with a `detail` field: a message, a `{code, message}` object, or (422) a list of `{loc, msg, type}`.',
};

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

/** apiApp plus /openapi.json and /docs: local development, tests and the OpenAPI export. */
export function combinedApp() {
  const app = apiApp();
  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKeyHeader', {
    type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Project, internal or legacy API key.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'BearerAuth', {
    type: 'http', scheme: 'bearer', description: 'The same key as a bearer token.',
  });
  app.doc31('/openapi.json', (c) => ({
    openapi: '3.1.0',
    info: OPENAPI_INFO,
    servers: [{ url: new URL(c.req.url).origin, description: 'This server' }],
  }));
  // The reference UI's bundle comes from this deployment's static assets (scripts/assets.ts), not a
  // CDN, and no web fonts are fetched: /docs renders without internet access.
  app.get('/docs', Scalar({ url: '/openapi.json', pageTitle: 'Discovery analytics API', cdn: SCALAR_BUNDLE, withDefaultFonts: false }));
  app.get('/', (c) => c.redirect('/docs'));
  return app;
}
