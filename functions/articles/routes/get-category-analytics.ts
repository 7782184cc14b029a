// GET /v1/analytics/categories: impressions, publications, position and change per category path.
import { createRoute } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { App } from '../../../shared/http/app';
import type { Env } from '../../../shared/env';
import { invalid } from '../../../shared/http/errors';
import { assertEndpointScopable } from '../../../shared/limits/gates';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { resolveWindow, scopeBody } from '../../../shared/scope/window-scope';
import { prefetchMarketsWithData } from '../../../shared/rollups/coverage';
import { categoryAnalytics } from '../categories-compute';
import { CategoryAnalyticsQuery, CategoryAnalyticsSchema } from '../categories-schemas';
import { categoryPaths } from '../params';

/** A plan gate, so it runs before validation: totals over every category cannot be limited to chosen ones. */
const closedToChosenCategories: MiddlewareHandler<Env> = async function closedToChosenCategories(c, next) {
  assertEndpointScopable(c.var.auth, '/v1/analytics/categories');
  await next();
};

const route = createRoute({
  method: 'get',
  path: '/v1/analytics/categories',
  operationId: 'getCategoryAnalytics',
  tags: ['Analytics'],
  summary: 'Category analytics',
  description:
    'One row per category path with impressions in the window and markets, most impressions first: impressions, distinct ' +
    'publications and publishers active in the window, impression-weighted position, and the change against the previous ' +
    'window of the same length. A row measures the articles tagged with that path or any path below it, each once (`/Sports` ' +
    'covers `/Sports/Soccer`; whole segments, case-sensitive), as a category tracking list does; ' +
    'narrow the rows with `top_level` or `parent`. Windows are UTC and half-open; default periods end now and cover N UTC days ' +
    '(today partial); an hour counts when it starts inside the window. Closed to category-limited plans (Start, Grow): 403 ' +
    '`endpoint_not_in_plan_scope`.',
  security: keyed,
  middleware: [closedToChosenCategories] as const,
  request: { query: CategoryAnalyticsQuery },
  responses: {
    200: { description: 'Category analytics.', content: { 'application/json': { schema: CategoryAnalyticsSchema } } },
    ...errorResponses(401, 402, 403, 422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth, clock } = c.var;
    const query = c.req.valid('query');
    const parent = categoryPaths(query.parent, 'parent');
    if (parent && parent.length > 1) throw invalid(['query', 'parent'], 'parent is one taxonomy path');
    if (parent && query.top_level) throw invalid(['query', 'parent'], 'parent and top_level=true exclude each other');
    prefetchMarketsWithData(c.var.config, db);
    const scope = await resolveWindow(db, auth, clock.now(), query, 'day');
    const { categories, total } = await categoryAnalytics(
      db,
      scope,
      { topLevel: query.top_level, parent: parent?.[0] ?? null },
      query.limit,
      query.offset,
    );
    return c.json({ scope: scopeBody(scope), categories, total, limit: query.limit, offset: query.offset }, 200);
  });
}
