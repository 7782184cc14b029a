// GET /v1/entities/{entity_name}/articles: the entity's visible articles by its score in each.
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { notFound } from '../../../shared/http/errors';
import { exportable } from '../../../shared/http/exports';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { scopeOf } from '../../../shared/scope/scope';
import { countArticles, entityArticles, getEntity } from '../queries';
import { ArticlesQuery, EntityArticlesSchema, entityNameParam } from '../schemas';
import { lookupName, toEntityArticle } from '../serialize';

const route = exportable(
  createRoute({
    method: 'get',
    path: '/v1/entities/{entity_name}/articles',
    operationId: 'listEntityArticles',
    tags: ['Entities'],
    summary: 'Articles of an entity',
    description:
      "Articles mentioning the entity, sorted by the entity's `unified_score` in each article, descending (ties: `url_id`). " +
      'Restricted keys see only articles that surfaced in their countries, plans limited to chosen categories only articles of ' +
      'those categories; `total` counts exactly what the key may see. ' +
      'Unknown (or invisible) entity: 404.',
    security: keyed,
    request: { params: entityNameParam, query: ArticlesQuery },
    responses: {
      200: { description: 'A page of articles.', content: { 'application/json': { schema: EntityArticlesSchema } } },
      ...errorResponses(401, 402, 403, 404, 422, 429, 503),
    },
  }),
  'articles',
);

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth, config } = c.var;
    const { limit, offset } = c.req.valid('query');
    const name = lookupName(c.req.valid('param').entity_name);
    const entity = name ? await getEntity(db, scopeOf(auth), name) : undefined;
    if (!entity) throw notFound(`Entity '${name}' not found`);
    const [rows, total] = await Promise.all([
      entityArticles(db, scopeOf(auth), entity.id, limit, offset),
      countArticles(db, scopeOf(auth), entity.id),
    ]);
    return c.json({ entity_name: name, articles: rows.map((r) => toEntityArticle(r, config.APP_URL)), total }, 200);
  });
}
