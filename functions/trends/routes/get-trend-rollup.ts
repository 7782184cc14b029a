// GET /v1/trends/{trend_id}/rollup: the trend's window totals and top-N blocks (designed here: the
// spec refers to a trend roll-up with `top_articles[]`), cached and single-flight, queued when big.
import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import type { AuthContext } from '../../../shared/auth/types';
import { heldOrLoaded } from '../../../shared/cache/memory';
import { namespaces } from '../../../shared/cache/namespaces';
import type { Db } from '../../../shared/db/client';
import type { Config } from '../../../shared/env';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { resolveWindow, WindowQuery } from '../../../shared/scope/window-scope';
import { serveTrendRollup } from '../aggregate';
import { trendNotFound } from '../not-found';
import { getTrendSize } from '../queries';
import { TrendRollupSchema } from '../rollup-schemas';
import { REGION_GATE, trendIdParam } from '../schemas';
import { marketsParam, scopeOf } from '../../../shared/scope/scope';

const route = createRoute({
  method: 'get',
  path: '/v1/trends/{trend_id}/rollup',
  operationId: 'getTrendRollup',
  tags: ['Trends'],
  summary: 'Roll-up of a trend',
  description:
    "Window totals of the trend's articles in the requested markets (`country`, `lang`, `period` or `date_from`/`date_to`, " +
    'as tracking roll-ups; day windows, today partial): publications (articles with impressions), impressions and the ' +
    "previous window's, publishers, newly seen articles, and the top 10 `top_articles` (with `cabinet_url`), publishers, " +
    'countries and entities by impressions. An uncached roll-up of a big trend may answer 503 `computing` with ' +
    `\`Retry-After: 15\`: repeat the identical request. An explicit \`country\` outside the key's markets is 403. ${REGION_GATE}`,
  security: keyed,
  request: { params: trendIdParam, query: z.object(WindowQuery) },
  responses: {
    200: { description: 'Roll-up.', content: { 'application/json': { schema: TrendRollupSchema } } },
    ...errorResponses(401, 402, 403, 404, 422, 429, 503),
  },
});

/**
 * Trends this isolate found visible to a scope in the last ISOLATE_CACHE_SECONDS, with their size, so
 * that a warm roll-up costs no SQL (as a tracking list's admission, functions/tracking/gates.ts). An
 * unknown or hidden trend is never held.
 */
const admitted = namespaces.trendAdmissions.held;

function admittedTrendSize(config: Config, db: Db, auth: AuthContext, trendId: string): Promise<number | undefined> {
  const scope = scopeOf(auth);
  const key = JSON.stringify([config.DATABASE_URL, config.REDIS_PREFIX, marketsParam(scope), trendId.toLowerCase()]);
  return heldOrLoaded(admitted, key, config.ISOLATE_CACHE_SECONDS, 64, () => getTrendSize(db, scope, trendId));
}

export function register(app: App) {
  app.openapi(route, async (c) => {
    const { db, auth, clock } = c.var;
    const { trend_id } = c.req.valid('param');
    const query = c.req.valid('query');
    // Beside the cache lookup: refuses unknown trends (404), bad windows and markets (422, 403)
    // before anything is cached or queued.
    const admission = admittedTrendSize(c.var.config, db, auth, trend_id).then(async (articles) => {
      if (articles === undefined) throw trendNotFound(trend_id);
      const scope = await resolveWindow(db, auth, clock.now(), query, 'day');
      return { articles, markets: scope.keyScope.markets.length };
    });
    const body = await serveTrendRollup(c, { trendId: trend_id, query, auth }, admission);
    return c.json(body, 200);
  });
}
