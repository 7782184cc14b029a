// GET /v1/entities: unique entities by normalized name, best visible occurrence first.
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { exportable } from '../../../shared/http/exports';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { scopeOf } from '../../../shared/scope/scope';
import { listEntities } from '../queries';
import { EntityListSchema, ListQuery } from '../schemas';
import { toEntity } from '../serialize';

const route = exportable(
  createRoute({
    method: 'get',
    path: '/v1/entities',
    operationId: 'listEntities',
    tags: ['Entities'],
    summary: 'List entities',
    description:
      'One entry per normalized name, carrying its highest-scoring occurrence (ties: higher `embedding_similarity`, then the ' +
      'smaller `url_id`), sorted by `unified_score` descending (ties: `normalized_name`). Restricted keys see only occurrences ' +
      'on articles that surfaced in their countries, and `total` counts only those entities. `search` is a case- and ' +
      'accent-insensitive substring of the name, served by a trigram index.',
    security: keyed,
    request: { query: ListQuery },
    responses: {
      200: { description: 'A page of entities.', content: { 'application/json': { schema: EntityListSchema } } },
      ...errorResponses(401, 402, 403, 422, 429, 503),
    },
  }),
  'entities',
);

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth } = c.var;
    const q = c.req.valid('query');
    const { total, rows } = await listEntities(db, scopeOf(auth), {
      search: q.search?.trim() ? q.search.trim() : null,
      entityType: q.entity_type ?? null,
      minScore: q.min_score,
      limit: q.limit,
      offset: q.offset,
    });
    return c.json({ entities: rows.map(toEntity), total, limit: q.limit, offset: q.offset }, 200);
  });
}
