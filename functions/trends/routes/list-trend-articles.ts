// GET /v1/trends/{trend_id}/articles: the trend's articles the key may see, sorted and paged.
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { listTrendArticles } from '../articles-query';
import { trendNotFound } from '../not-found';
import { REGION_GATE, TrendArticlesQuery, TrendArticlesSchema, trendIdParam } from '../schemas';
import { toTrendArticle } from '../serialize';
import { scopeOf } from '../../../shared/scope/scope';

const route = createRoute({
  method: 'get',
  path: '/v1/trends/{trend_id}/articles',
  operationId: 'listTrendArticles',
  tags: ['Trends'],
  summary: 'Articles of a trend',
  description:
    'Articles assigned to the trend, sorted by `sort_by` (nulls last), optionally one `role` only; `total` is exact. ' +
    `${REGION_GATE} Restricted keys see only articles that surfaced in their markets, and category-limited plans only ` +
    'articles with a category under their chosen top levels; `total` counts the same.',
  security: keyed,
  request: { params: trendIdParam, query: TrendArticlesQuery },
  responses: {
    200: { description: 'A page of articles.', content: { 'application/json': { schema: TrendArticlesSchema } } },
    ...errorResponses(401, 402, 403, 404, 422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth, config } = c.var;
    const { trend_id } = c.req.valid('param');
    const q = c.req.valid('query');
    const result = await listTrendArticles(db, scopeOf(auth), trend_id, {
      role: q.role,
      sortBy: q.sort_by,
      sortOrder: q.sort_order,
      limit: q.limit,
      offset: q.offset,
    });
    if (!result) throw trendNotFound(trend_id);
    const articles = result.rows.map((row) => toTrendArticle(row, config.APP_URL));
    return c.json({ trend_id, articles, total: result.total, limit: q.limit, offset: q.offset }, 200);
  });
}
