// GET /v1/themes/{theme_id}/topics: a theme's level-1 topics, by n_articles descending.
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { listTopics } from '../hierarchy-queries';
import { REGION_GATE, themeIdParam, ThemeTopicsSchema } from '../schemas';
import { toNode } from '../serialize-node';
import { scopeOf } from '../../../shared/scope/scope';

const route = createRoute({
  method: 'get',
  path: '/v1/themes/{theme_id}/topics',
  operationId: 'listThemeTopics',
  tags: ['Trends'],
  summary: 'Topics of a theme',
  description:
    'The topics (level 1) under a theme, most articles first, with counts computed from the data the key may see. An ' +
    `unknown theme gives an empty \`topics\` array, not 404. ${REGION_GATE}`,
  security: keyed,
  request: { params: themeIdParam },
  responses: {
    200: { description: 'Topics.', content: { 'application/json': { schema: ThemeTopicsSchema } } },
    ...errorResponses(401, 402, 403, 422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth } = c.var;
    const { theme_id } = c.req.valid('param');
    const rows = await listTopics(db, scopeOf(auth), theme_id);
    return c.json({ theme_id, topics: rows.map(toNode) }, 200);
  });
}
