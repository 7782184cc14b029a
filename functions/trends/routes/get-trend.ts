// GET /v1/trends/{trend_id}: one trend with its 180-day sparkline and features, computed from its
// article assignments at request time (never stale; docs/TRENDS.md).
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { getTrend } from '../queries';
import { REGION_GATE, TrendDetailSchema, trendIdParam } from '../schemas';
import { toTrendDetail } from '../serialize';
import { trendNotFound } from '../not-found';
import { scopeOf } from '../../../shared/scope/scope';

const route = createRoute({
  method: 'get',
  path: '/v1/trends/{trend_id}',
  operationId: 'getTrend',
  tags: ['Trends'],
  summary: 'Trend detail',
  description:
    'The trend with `daily_counts_180d` (new articles per UTC day, the 180 days ending today, zero-filled) and `features`, ' +
    `both computed from the trend's article assignments when asked (formulas: docs/TRENDS.md). ${REGION_GATE}`,
  security: keyed,
  request: { params: trendIdParam },
  responses: {
    200: { description: 'Trend detail.', content: { 'application/json': { schema: TrendDetailSchema } } },
    ...errorResponses(401, 402, 403, 404, 422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth, config, clock } = c.var;
    const { trend_id } = c.req.valid('param');
    const row = await getTrend(db, scopeOf(auth), trend_id);
    if (!row) throw trendNotFound(trend_id);
    return c.json(toTrendDetail(row, config.APP_URL, clock.now()), 200);
  });
}
