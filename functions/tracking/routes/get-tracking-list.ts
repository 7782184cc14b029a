// GET /v1/tracking/lists/{list_id}: one list with all its items (terms for mention lists).
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { iso } from '../../../shared/format';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { resolvedItems } from '../items';
import { listNotFound, trackingProject } from '../project';
import { getList } from '../queries';
import { listIdParam, ListDetailSchema } from '../schemas';
import { toItem, toListRow, toTerm } from '../serialize';

const route = createRoute({
  method: 'get',
  path: '/v1/tracking/lists/{list_id}',
  operationId: 'getTrackingList',
  tags: ['Tracking lists'],
  summary: 'Get a tracking list',
  description:
    'One list of any kind with all items, newest added first, unpaginated. Items are `{key, name, type, added_at}`; ' +
    'mention lists return their terms, `mentions` (keywords) and `extraction_started_at`. ' +
    "An unknown id and another project's list are both 404 `tracking list not found`.",
  security: keyed,
  request: { params: listIdParam },
  responses: {
    200: { description: 'The list.', content: { 'application/json': { schema: ListDetailSchema } } },
    ...errorResponses(401, 402, 403, 404, 422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth, clock } = c.var;
    const projectId = trackingProject(auth);
    const list = await getList(db, projectId, c.req.valid('param').list_id, clock.now());
    if (!list) throw listNotFound();
    const items = await resolvedItems(db, list);
    if (list.kind !== 'mention') return c.json({ ...toListRow(list), items: items.map(toItem) }, 200);
    const terms = items.map(({ item }) => toTerm(item));
    const mentions = [...new Set([...terms].sort((a, b) => a.position - b.position).map((t) => t.raw_text))];
    return c.json({ ...toListRow(list), mentions, items: terms, extraction_started_at: iso(list.extraction_started_at) }, 200);
  });
}
