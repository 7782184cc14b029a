// GET /v1/entities/{entity_name}: one entity by normalized name, with its exact visible article count.
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { notFound } from '../../../shared/http/errors';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { scopeOf } from '../../../shared/scope/scope';
import { countArticles, getEntity } from '../queries';
import { EntityDetailSchema, entityNameParam } from '../schemas';
import { lookupName, toEntityDetail } from '../serialize';

const route = createRoute({
  method: 'get',
  path: '/v1/entities/{entity_name}',
  operationId: 'getEntity',
  tags: ['Entities'],
  summary: 'Entity detail',
  description:
    'Matched by the trimmed, lower-cased path name against `normalized_name` (URL-encode spaces: `Taylor%20Swift`). The kg ' +
    'values are flattened; `articles_count` is the exact number of articles mentioning the entity that the key may see ' +
    "(its countries and its plan's categories). `url_id` and the scores are of the best occurrence the key may see (for a " +
    'plan limited to chosen categories: on an article of those categories). An entity the key cannot see (none of its ' +
    'occurrences visible) answers 404 like an unknown one.',
  security: keyed,
  request: { params: entityNameParam },
  responses: {
    200: { description: 'The entity.', content: { 'application/json': { schema: EntityDetailSchema } } },
    ...errorResponses(401, 402, 403, 404, 422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth } = c.var;
    const name = lookupName(c.req.valid('param').entity_name);
    const row = name ? await getEntity(db, scopeOf(auth), name) : undefined;
    if (!row) throw notFound(`Entity '${name}' not found`);
    const count = await countArticles(db, scopeOf(auth), row.id);
    return c.json(toEntityDetail(row, count), 200);
  });
}
