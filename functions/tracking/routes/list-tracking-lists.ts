// GET /v1/tracking/lists: every list the key's project owns, newest-updated first.
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import type { ListKind } from '../../../shared/db/values';
import { LIST_CAPS } from '../../../shared/scope/plans';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { trackingProject } from '../project';
import { listLists, usedPerKind } from '../queries';
import { ListIndexQuery, ListIndexSchema } from '../schemas';
import { toListRow } from '../serialize';

const route = createRoute({
  method: 'get',
  path: '/v1/tracking/lists',
  operationId: 'listTrackingLists',
  tags: ['Tracking lists'],
  summary: 'List tracking lists',
  description:
    "Every list the key's project owns, newest-updated first, with `usage` per kind against the plan's caps. " +
    'Needs a project key (403 `project_key_required` otherwise); internal keys may name a project with `project_id`.',
  security: keyed,
  request: { query: ListIndexQuery },
  responses: {
    200: { description: 'Lists.', content: { 'application/json': { schema: ListIndexSchema } } },
    ...errorResponses(401, 402, 403, 422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { kind, project_id, limit, offset } = c.req.valid('query');
    const { db, auth, clock } = c.var;
    const projectId = trackingProject(auth, project_id);
    const [{ rows, total }, { plan, used }] = await Promise.all([
      listLists(db, projectId, clock.now(), kind, limit, offset),
      usedPerKind(db, projectId),
    ]);
    const caps = plan ? LIST_CAPS[plan] : null;
    const usageOf = (k: ListKind) => ({ used: used.get(k) ?? 0, limit: caps ? caps[k] : null });
    // Every kind by name (in LIST_KINDS order): the compiler checks the object against the schema's keys.
    const usage = {
      entity: usageOf('entity'),
      category: usageOf('category'),
      publisher: usageOf('publisher'),
      trend: usageOf('trend'),
      mention: usageOf('mention'),
    };
    return c.json({ lists: rows.map(toListRow), usage, total, limit, offset }, 200);
  });
}
