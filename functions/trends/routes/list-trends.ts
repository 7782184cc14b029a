// GET /v1/trends: visible trends, filtered, sorted (nulls last) and paged, with the exact total.
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { exportable } from '../../../shared/http/exports';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { listTrends } from '../queries';
import { REGION_GATE, TrendListSchema, TrendsQuery } from '../schemas';
import { toTrend } from '../serialize';
import { scopeOf } from '../../../shared/scope/scope';

const route = exportable(
  createRoute({
    method: 'get',
    path: '/v1/trends',
    operationId: 'listTrends',
    tags: ['Trends'],
    summary: 'List trends',
    description:
      'Trends with their lifecycle state, filtered by `state`, `structural_type`, `semantic_type` (`unclassified` = no ' +
      'semantic type yet), `topic_id`, `theme_id` (every topic under the theme) and `min_articles`; sorted by `sort_by` ' +
      `with nulls last in either direction. \`total\` is the exact filtered count. ${REGION_GATE}`,
    security: keyed,
    request: { query: TrendsQuery },
    responses: {
      200: { description: 'A page of trends.', content: { 'application/json': { schema: TrendListSchema } } },
      ...errorResponses(401, 402, 403, 422, 429, 503),
    },
  }),
  'trends',
);

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth, config } = c.var;
    const q = c.req.valid('query');
    const { total, rows } = await listTrends(db, scopeOf(auth), {
      state: q.state,
      structuralType: q.structural_type,
      semanticType: q.semantic_type,
      topicId: q.topic_id,
      themeId: q.theme_id,
      minArticles: q.min_articles,
      sortBy: q.sort_by,
      sortOrder: q.sort_order,
      limit: q.limit,
      offset: q.offset,
    });
    const trends = rows.map((row) => toTrend(row, config.APP_URL));
    return c.json({ trends, total, limit: q.limit, offset: q.offset }, 200);
  });
}
