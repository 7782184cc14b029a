// GET /v1/trends/{trend_id}/parents: direct parent edges of the genealogy graph, unpaginated. Symmetric
// with /children: an edge is a child edge of its parent and a parent edge of its child.
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { trendNotFound } from '../not-found';
import { listEdges } from '../queries';
import { ParentsSchema, REGION_GATE, trendIdParam } from '../schemas';
import { toEdge } from '../serialize';
import { scopeOf } from '../../../shared/scope/scope';

const route = createRoute({
  method: 'get',
  path: '/v1/trends/{trend_id}/parents',
  operationId: 'listTrendParents',
  tags: ['Trends'],
  summary: 'Parents of a trend',
  description:
    'Every direct parent of the trend in the genealogy graph, strongest edge first, unpaginated. Edges to trends the key ' +
    `may not see are left out. ${REGION_GATE}`,
  security: keyed,
  request: { params: trendIdParam },
  responses: {
    200: { description: 'Edges.', content: { 'application/json': { schema: ParentsSchema } } },
    ...errorResponses(401, 402, 403, 404, 422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth } = c.var;
    const { trend_id } = c.req.valid('param');
    const edges = await listEdges(db, scopeOf(auth), trend_id, 'parent');
    if (!edges) throw trendNotFound(trend_id);
    return c.json({ trend_id, parents: edges.map((e) => toEdge(e, 'parent')) }, 200);
  });
}
