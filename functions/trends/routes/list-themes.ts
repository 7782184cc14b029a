// GET /v1/themes: level-2 nodes of the hierarchy, by n_articles descending.
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { listThemes } from '../hierarchy-queries';
import { REGION_GATE, ThemesSchema } from '../schemas';
import { toNode } from '../serialize-node';
import { scopeOf } from '../../../shared/scope/scope';

const route = createRoute({
  method: 'get',
  path: '/v1/themes',
  operationId: 'listThemes',
  tags: ['Trends'],
  summary: 'List themes',
  description:
    'Themes (level 2), most articles first. `n_trends` counts the trends of their topics and `n_articles` the distinct ' +
    `articles of those trends, both computed from the data the key may see. ${REGION_GATE} No parameters.`,
  security: keyed,
  responses: {
    200: { description: 'Themes.', content: { 'application/json': { schema: ThemesSchema } } },
    ...errorResponses(401, 402, 403, 422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth } = c.var;
    const rows = await listThemes(db, scopeOf(auth));
    return c.json({ themes: rows.map(toNode) }, 200);
  });
}
