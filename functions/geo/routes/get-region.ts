// GET /v{1,2}/geo/regions/{alpha_2}: one region with cities, population and article totals.
import { createRoute } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import type { Mount } from '../../../shared/http/route-table';
import { referenceRead } from '../../../shared/cache/reference';
import { notFound } from '../../../shared/http/errors';
import { iso } from '../../../shared/format';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { assertCountryAllowed, scopeOf } from '../../../shared/scope/scope';
import { articleTotals, dailyImpressions, getRegion, listCities } from '../queries';
import { toStats } from '../serialize';
import { alpha2Param, RegionDetailSchema } from '../schemas';
import { DAY_MS } from '../../../shared/time/windows';

const route = (version: string) =>
  createRoute({
    method: 'get',
    path: '/geo/regions/{alpha_2}',
    operationId: `${version}GeoGetRegion`,
    tags: ['Geo'],
    summary: 'Region detail',
    description: "`alpha_2` is upper-cased (`us` and `US` are equivalent). A country outside the key's allowlist is 403.",
    security: keyed,
    request: { params: alpha2Param },
    responses: {
      200: { description: 'Region detail.', content: { 'application/json': { schema: RegionDetailSchema } } },
      ...errorResponses(401, 403, 404, 422, 429, 503),
    },
  });

export function register(app: App, { version }: Mount) {
  app.openapi(route(version), async (c) => {
    const { db, auth, clock } = c.var;
    const scope = scopeOf(auth);
    const code = assertCountryAllowed(scope, c.req.valid('param').alpha_2);
    // The key's scope was checked above; the answer depends on the region and the minute of now.
    return referenceRead(c, 'geo.region', null, { code }, async () => {
      const row = await getRegion(db, scope, code);
      if (!row) throw notFound(`Region '${code}' not found`);
      const now = clock.now();
      const [cities, perDay, totals] = await Promise.all([
        listCities(db, code, false),
        dailyImpressions(db, [code], now.toISOString().slice(0, 10)),
        articleTotals(db, code, new Date(now.getTime() - DAY_MS)),
      ]);
      const stats = toStats(row, perDay.get(code));
      return {
        alpha_2: row.alpha_2,
        alpha_3: row.alpha_3,
        name: row.name,
        region: row.region,
        sub_region: row.sub_region,
        languages: row.languages,
        cities,
        stats: stats ? { alpha_2: code.toLowerCase(), ...stats } : null,
        total_articles: totals.total_articles,
        articles_last_24h: totals.articles_last_24h,
        first_data_at: iso(totals.first_data_at),
      };
    });
  });
}
