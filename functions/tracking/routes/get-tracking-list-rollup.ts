// GET /v1/tracking/lists/{list_id}/rollup: side-panel aggregates over the whole list.
import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { coded } from '../../../shared/http/errors';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { rollupAggregate, serveTrackingAggregate } from '../aggregate';
import { RollupSchema } from '../aggregate-schemas';
import { admitAggregate } from '../gates';
import { ROLLUP_MAX_ITEMS } from '../rollup-compute';
import { trackingProject } from '../project';
import { listIdParam } from '../schemas';
import { WindowQuery } from '../../../shared/scope/window-scope';

const route = createRoute({
  method: 'get',
  path: '/v1/tracking/lists/{list_id}/rollup',
  operationId: 'getTrackingListRollup',
  tags: ['Tracking lists'],
  summary: 'Roll-up of a whole list',
  description:
    `Short top-N blocks over all items, unpaginated. Lists over ${ROLLUP_MAX_ITEMS} items: 422 \`list_too_large\` with the limit. ` +
    'An uncached roll-up may answer 503 `computing` with `Retry-After: 15`: repeat the identical request.',
  security: keyed,
  request: { params: listIdParam, query: z.object(WindowQuery) },
  responses: {
    200: { description: 'Roll-up.', content: { 'application/json': { schema: RollupSchema } } },
    ...errorResponses(401, 402, 403, 404, 422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth, clock } = c.var;
    const query = c.req.valid('query');
    const { list_id } = c.req.valid('param');
    const projectId = trackingProject(auth);
    const admission = admitAggregate(c.var.config, db, auth, clock.now(), list_id, query, 'day').then(({ list, markets }) => {
      if (list.item_count > ROLLUP_MAX_ITEMS) {
        throw coded('list_too_large', `Roll-ups cover lists of up to ${ROLLUP_MAX_ITEMS} items; this one has ${list.item_count}.`, {
          limit: ROLLUP_MAX_ITEMS,
          item_count: list.item_count,
        });
      }
      return { list, markets, items: list.item_count };
    });
    const request = { route: 'rollup' as const, projectId, listId: list_id.toLowerCase(), query, auth };
    return serveTrackingAggregate(c, rollupAggregate, request, admission);
  });
}
