// GET /v1/articles/{id}: one article as seen in the key's markets.
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import { notFound } from '../../../shared/http/errors';
import { assertArticleInPlan } from '../../../shared/limits/gates';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { resolveMarkets, scopeOf } from '../../../shared/scope/scope';
import { getArticle } from '../queries';
import { ArticleDetailSchema, articleIdParam } from '../schemas';
import { toArticleDetail } from '../serialize';

const route = createRoute({
  method: 'get',
  path: '/v1/articles/{id}',
  operationId: 'getArticle',
  tags: ['Articles'],
  summary: 'Article detail',
  description:
    'The article object of the list plus its summary, page metadata, entities and one entry per market profile, all within ' +
    "the key's markets. An unknown id, or an article that never surfaced in the key's markets, is 404. On a category-limited " +
    'plan, an article none of whose categories lies under the chosen top levels is 404 `{code: "out_of_plan_scope"}`.',
  security: keyed,
  request: { params: articleIdParam },
  responses: {
    200: { description: 'The article.', content: { 'application/json': { schema: ArticleDetailSchema } } },
    ...errorResponses(401, 402, 403, 404, 422, 429, 503),
  },
});

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth, config } = c.var;
    const { id } = c.req.valid('param');
    const { scope } = await resolveMarkets(db, scopeOf(auth));
    const row = await getArticle(db, scope, id);
    // Outside the key's markets the article does not exist for it: the same 404 as an unknown id.
    if (!row || row.profiles.length === 0) throw notFound(`Article '${id}' not found`);
    assertArticleInPlan(
      auth,
      row.categories.map((cat) => cat.name),
    );
    return c.json(toArticleDetail(row, config.APP_URL), 200);
  });
}
