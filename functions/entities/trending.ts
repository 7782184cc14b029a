// GET /v1/entities/trending: top entities of a region by mentions in a window ending now.
import { createRoute } from '@hono/zod-openapi';
import { serveAggregate, type AggregateKind } from '../../shared/aggregate';
import type { App } from '../../shared/app';
import type { Db } from '../../shared/db/client';
import { exportable } from '../../shared/exports';
import { cabinetUrl } from '../../shared/format';
import { ceilHour } from '../../shared/rollups/buckets';
import { errorResponses, keyed } from '../../shared/schemas/common';
import { assertCountryAllowed } from '../../shared/scope';
import { windowEndingAt } from '../../shared/windows';
import { TrendingListSchema, TrendingQuery } from './schemas';
import { rankTrending, rankTrendingInPlan, type TrendingRequest } from './trending-queries';

const route = exportable(createRoute({
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
    'ingest, not from a scan of articles. A region outside a restricted key\'s countries is 403. A plan limited to chosen ' +
    'categories ranks by the mentions on its categories\' articles only, and `top_article` is one of them.',
  security: keyed,
  request: { query: TrendingQuery },
  responses: {
    200: { description: 'Trending entities.', content: { 'application/json': { schema: TrendingListSchema } } },
    ...errorResponses(401, 402, 403, 422, 429, 503),
  },
}), 'trending_entities');

/**
 * The ranking with each entity's top article: what every key allowed the region gets, or, for a
 * category-limited plan, what its categories' articles make (ranks and `top_article` alike).
 */
async function trendingEntities(db: Db, request: TrendingRequest, planCategories: string[] | null) {
  const ranked = planCategories === null ? await rankTrending(db, request) : await rankTrendingInPlan(db, request, planCategories);
  return ranked.flatMap((r) => {
    // Every ranked entity has a mention in the window, hence a top article; a row without one
    // would mean the roll-ups disagree, and is left out rather than invented.
    if (r.top_url_id === null) return [];
    return [{
      name: r.name,
      kg_id: r.kg_id,
      kg_name: r.kg_name,
      entity_types: r.entity_types,
      mentions_in_period: r.mentions,
      articles_in_period: r.articles,
      top_article: { url_id: r.top_url_id, title: r.top_title ?? '', domain: r.top_domain ?? '' },
    }];
  });
}

/** Plan categories are part of the question: a category-limited plan never shares another's answer. */
type CachedTrendingRequest = Omit<TrendingRequest, 'from' | 'to'> & { from: string; to: string; planCategories: string[] | null };

/**
 * Cached for a minute and computed once for concurrent identical misses (shared single flight). The
 * window's hours are part of the request, so the answer moves on with the clock; ingest within the
 * minute shows after it.
 */
const trendingAggregate: AggregateKind<CachedTrendingRequest> = {
  name: 'entities.trending',
  ttlSeconds: 60,
  warm: false,
  compute: ({ db }, { planCategories, ...r }) => trendingEntities(db, { ...r, from: new Date(r.from), to: new Date(r.to) }, planCategories),
};

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { auth, clock, config } = c.var;
    const q = c.req.valid('query');
    const region = assertCountryAllowed(auth, q.region);
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
    const cached = (await serveAggregate(c, trendingAggregate, request)) as Awaited<ReturnType<typeof trendingEntities>>;
    // The link is added after the cache: the cached ranking does not depend on the deployment's app URL.
    const trending = cached.map((e) => ({ ...e, top_article: { ...e.top_article, cabinet_url: cabinetUrl(config.APP_URL, 'article', e.top_article.url_id) } }));
    return c.json({ region, period: q.period, trending_entities: trending }, 200);
  });
}
