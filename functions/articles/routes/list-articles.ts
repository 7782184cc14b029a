// GET /v1/articles: articles that surfaced in the key's markets, newest first.
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { invalid } from '../../../shared/http/errors';
import { exportable } from '../../../shared/http/exports';
import { assertEndpointScopable, clampToHistory } from '../../../shared/limits/gates';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { resolveMarkets, scopeOf } from '../../../shared/scope/scope';
import { categoryPaths, splitList } from '../params';
import { listArticles } from '../queries';
import { ArticleListSchema, ArticlesQuery } from '../schemas';
import { toArticle } from '../serialize';
import { DAY_MS } from '../../../shared/time/windows';

const route = exportable(
  createRoute({
    method: 'get',
    path: '/v1/articles',
    operationId: 'listArticles',
    tags: ['Articles'],
    summary: 'List articles',
    description:
      'Articles first seen in the requested markets within `[date_from, date_to)`, newest first by default. Every field that ' +
      'describes a sighting (`countries`, `languages`, `first_seen_at`, `last_seen_at`, `impressions`) counts only the requested ' +
      'markets (and `lang`). Category-limited plans (Start, Grow) see only articles with a category under their chosen top levels, ' +
      'and cannot use the `category` filter (403 `endpoint_not_in_plan_scope`). `total` is the exact number of matches.',
    security: keyed,
    request: { query: ArticlesQuery },
    responses: {
      200: { description: 'A page of articles.', content: { 'application/json': { schema: ArticleListSchema } } },
      ...errorResponses(401, 402, 403, 422, 429, 503),
    },
  }),
  'articles',
);

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth, clock, config } = c.var;
    const query = c.req.valid('query');
    // A category filter cannot be limited to the plan's categories: refused before anything else is read.
    if (query.category !== undefined) assertEndpointScopable(auth, 'The `category` filter of /v1/articles');
    const categories = categoryPaths(query.category, 'category');
    const entities = splitList(query.entity, 'entity');
    if (entities?.length === 0) throw invalid(['query', 'entity'], "Expected entity ids or names separated by ';'");
    const now = clock.now();
    const to = query.date_to ? new Date(query.date_to) : now;
    const from = query.date_from ? new Date(query.date_from) : new Date(now.getTime() - auth.historyDays * DAY_MS);
    if (query.date_from && to <= from) throw invalid(['query', 'date_to'], 'date_to must be after date_from');
    // A window that ends before the plan's history is not refused: it is clamped, and empty.
    const clamp = clampToHistory(auth, from, now);
    const { scope } = await resolveMarkets(db, scopeOf(auth), query.country);
    const lang = query.lang.toLowerCase();
    const { total, rows } = await listArticles(db, {
      scope,
      language: lang === 'all' ? null : lang,
      from: clamp.from,
      to,
      categories,
      entities,
      matchAll: query.match === 'all',
      q: query.q ?? null,
      wholeHistory: clamp.from.getTime() <= now.getTime() - auth.historyDays * 86_400_000 && to >= now,
      sortBy: query.sort_by,
      sortOrder: query.sort_order,
      limit: query.limit,
      offset: query.offset,
    });
    const articles = rows.map((row) => toArticle(row, config.APP_URL));
    return c.json({ articles, total, limit: query.limit, offset: query.offset, history_clamped: clamp.clamped }, 200);
  });
}
