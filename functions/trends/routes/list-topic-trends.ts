// GET /v1/topics/{topic_id}/trends: the visible trends of one topic, sorted (nulls last) and paged.
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { exportable } from '../../../shared/http/exports';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { listTrends } from '../queries';
import { REGION_GATE, TopicTrendsQuery, TopicTrendsSchema, topicIdParam } from '../schemas';
import { toTrend } from '../serialize';
import { scopeOf } from '../../../shared/scope/scope';

const route = exportable(
  createRoute({
    method: 'get',
    path: '/v1/topics/{topic_id}/trends',
    operationId: 'listTopicTrends',
    tags: ['Trends'],
    summary: 'Trends of a topic',
    description:
      'Every trend of the topic (with or without articles), sorted by `sort_by` with nulls last; `total` is exact. An ' +
      `unknown topic gives an empty list. ${REGION_GATE}`,
    security: keyed,
    request: { params: topicIdParam, query: TopicTrendsQuery },
    responses: {
      200: { description: 'A page of trends.', content: { 'application/json': { schema: TopicTrendsSchema } } },
      ...errorResponses(401, 402, 403, 422, 429, 503),
    },
  }),
  'trends',
);

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth, config } = c.var;
    const { topic_id } = c.req.valid('param');
    const q = c.req.valid('query');
    const { total, rows } = await listTrends(db, scopeOf(auth), {
      topicId: topic_id,
      minArticles: 0,
      sortBy: q.sort_by,
      sortOrder: q.sort_order,
      limit: q.limit,
      offset: q.offset,
    });
    const trends = rows.map((row) => toTrend(row, config.APP_URL));
    return c.json({ topic_id, trends, total, limit: q.limit, offset: q.offset }, 200);
  });
}
