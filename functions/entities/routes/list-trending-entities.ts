// GET /v1/entities/trending: top entities of a region by mentions in a window ending now.
import { createRoute } from '@hono/zod-openapi';
import { overBudget } from '../../../shared/aggregates/kind';
import { serveAggregate } from '../../../shared/aggregates/serve';
import type { App } from '../../../shared/http/app';
import { exportable } from '../../../shared/http/exports';
import { cabinetUrl } from '../../../shared/format';
import { ceilHour } from '../../../shared/rollups/buckets';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { assertCountryAllowed, scopeOf } from '../../../shared/scope/scope';
import { windowEndingAt } from '../../../shared/time/windows';
import { TrendingListSchema, TrendingQuery } from '../schemas';
import { inPlanRowsEstimate } from '../trending-queries';
import { trendingAggregate, type CachedTrendingRequest } from '../trending-aggregate';

const route = exportable(
  createRoute({
    method: 'get',
    path: '/v1/entities/trending',
    operationId: 'listTrendingEntities',
    tags: ['Entities'],
    summary: 'Trending entities in a region',
    description:
      'Top-N entities by `mentions_in_period` (ties: `articles_in_period`, then name). A *mention* is one profile (article x ' +
      'country x language) of an article mentioning the entity, first seen in `region` (and `lang`) during the period; ' +
      '`articles_in_period` counts distinct articles whose first appearance in the region (in `lang`, when given) falls in ' +
      'the period. The period ends now (UTC) and holds the hours that start inside it. Read from an hourly roll-up kept at ' +
      "ingest, not from a scan of articles. A region outside a restricted key's countries is 403. A plan limited to chosen " +
      "categories ranks by the mentions on its categories' articles only, and `top_article` is one of them; that ranking " +
      "reads the region's profiles, so when they exceed the inline budget it is computed in the background: 503 `computing` " +
      'with `Retry-After`, then repeat the identical request.',
    security: keyed,
    request: { query: TrendingQuery },
    responses: {
      200: { description: 'Trending entities.', content: { 'application/json': { schema: TrendingListSchema } } },
      ...errorResponses(401, 402, 403, 422, 429, 503),
    },
  }),
  'trending_entities',
);

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { auth, clock, config } = c.var;
    const q = c.req.valid('query');
    const region = assertCountryAllowed(scopeOf(auth), q.region);
    const window = windowEndingAt(clock.now(), q.period);
    const request: CachedTrendingRequest = {
      country: region,
      language: q.lang ?? null,
      from: ceilHour(window.from).toISOString(),
      to: ceilHour(window.to).toISOString(),
      entityType: q.entity_type ?? null,
      limit: q.limit,
      planCategories: auth.categories,
    };
    // A category-limited plan's ranking reads raw profiles (no roll-up keeps categories): past the inline
    // budget it is queued (503 `computing`). The estimate runs beside the cache lookup: no extra round trip.
    const options = auth.categories
      ? inPlanRowsEstimate(c.var.db, { ...request, from: new Date(request.from), to: new Date(request.to) }).then((rows) => ({
          background: overBudget(config, rows),
        }))
      : {};
    const cached = await serveAggregate(c, trendingAggregate, request, options);
    // The link is added after the cache: the cached ranking does not depend on the deployment's app URL.
    const trending = cached.map((e) => ({
      ...e,
      top_article: { ...e.top_article, cabinet_url: cabinetUrl(config.APP_URL, 'article', e.top_article.url_id) },
    }));
    return c.json({ region, period: q.period, trending_entities: trending }, 200);
  });
}
