// GET /v1/tracking/lists/{list_id}/metrics: per-item table for one page of items plus summary.
import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { exportable } from '../../../shared/http/exports';
import { errorResponses, keyed, limitParam, offsetParam } from '../../../shared/schemas/common';
import { metricsAggregate, serveTrackingAggregate } from '../aggregate';
import { MetricsSchema } from '../aggregate-schemas';
import { admitAggregate } from '../gates';
import { trackingProject } from '../project';
import { listIdParam } from '../schemas';
import { WindowQuery } from '../../../shared/scope/window-scope';

const route = exportable(
  createRoute({
    method: 'get',
    path: '/v1/tracking/lists/{list_id}/metrics',
    operationId: 'getTrackingListMetrics',
    tags: ['Tracking lists'],
    summary: 'Metrics of a page of list items',
    description:
      'One row per item of the requested page (newest added first), zero-filled without activity, and a summary over the page. ' +
      'Windows are UTC and half-open; default periods end now (day grain: N UTC days with today partial; hour grain: N x 24 hours); ' +
      'the previous window has the same shape right before. A category item covers its path and every path below it (`/Sports` ' +
      'covers `/Sports/Soccer`; whole segments, case-sensitive). An uncached, expensive page answers 503 `computing` with ' +
      '`Retry-After: 15`: repeat the identical request.',
    security: keyed,
    request: {
      params: listIdParam,
      query: z.object({
        ...WindowQuery,
        grain: z.enum(['hour', 'day']).default('day').openapi({ description: 'Sparkline bucket; `hour` is meant for short windows.' }),
        limit: limitParam(200, 50),
        offset: offsetParam,
      }),
    },
    responses: {
      200: { description: 'Metrics.', content: { 'application/json': { schema: MetricsSchema } } },
      ...errorResponses(401, 402, 403, 404, 422, 429, 503),
    },
  }),
  'items',
);

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth, clock } = c.var;
    const query = c.req.valid('query');
    const { list_id } = c.req.valid('param');
    const projectId = trackingProject(auth);
    const admission = admitAggregate(c.var.config, db, auth, clock.now(), list_id, query, query.grain).then(({ list, markets }) => ({
      list,
      markets,
      items: Math.max(0, Math.min(query.limit, list.item_count - query.offset)),
    }));
    // The list id as PostgreSQL spells it (lower case): the cache key of the identical question.
    const request = { route: 'metrics' as const, projectId, listId: list_id.toLowerCase(), query, auth };
    return serveTrackingAggregate(c, metricsAggregate, request, admission);
  });
}
