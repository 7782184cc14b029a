// GET /v{1,2}/geo/regions: regions with Discover profiles, filtered to the key's countries.
import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import type { Mount } from '../../../shared/http/route-table';
import { referenceRead } from '../../../shared/cache/reference';
import { errorResponses, keyed } from '../../../shared/schemas/common';
import { scopeOf } from '../../../shared/scope/scope';
import { windowEndingAt } from '../../../shared/time/windows';
import { dailyImpressions, entityImpressions, listRegions } from '../queries';
import { RegionSchema, RegionsQuerySchema } from '../schemas';
import { toStats } from '../serialize';

const route = (version: string) =>
  createRoute({
    method: 'get',
    path: '/geo/regions',
    operationId: `${version}GeoListRegions`,
    tags: ['Geo'],
    summary: 'List regions',
    description:
      'Regions (countries) with Discover profiles, sorted by name and filtered to the countries the key may read; ' +
      '`total` counts after that filter. With `entity`, each region says whether articles mentioning the entity had ' +
      'impressions there in `window`.',
    security: keyed,
    request: { query: RegionsQuerySchema },
    responses: {
      200: {
        description: 'Regions.',
        content: {
          'application/json': { schema: z.object({ regions: z.array(RegionSchema), total: z.number().int() }).openapi('RegionList') },
        },
      },
      ...errorResponses(401, 402, 403, 422, 429, 503),
    },
  });

export function register(app: App, { version }: Mount) {
  app.openapi(route(version), async (c) => {
    const query = c.req.valid('query');
    const { db, auth, clock } = c.var;
    // Filtered to the key's countries: they are part of the cache key.
    return referenceRead(c, 'geo.regions', auth.allowedCountries, query, async () => {
      const now = clock.now();
      const rows = await listRegions(db, scopeOf(auth), query.active_only);
      const codes = rows.map((r) => r.alpha_2);
      const [perDay, activity] = await Promise.all([
        query.with_stats ? dailyImpressions(db, codes, now.toISOString().slice(0, 10)) : undefined,
        query.entity ? entityImpressions(db, query.entity, windowEndingAt(now, query.window), codes) : undefined,
      ]);
      const regions = rows
        .map((row) => ({
          alpha_2: row.alpha_2,
          name: row.name,
          region: row.region,
          sub_region: row.sub_region,
          languages: row.languages,
          cities_count: row.cities_count,
          profiles_count: row.profiles_count,
          is_active: row.is_active,
          ...(perDay && { stats: toStats(row, perDay.get(row.alpha_2)) }),
          ...(activity && {
            has_entity_activity: (activity.get(row.alpha_2) ?? 0) > 0,
            entity_impressions: activity.get(row.alpha_2) ?? 0,
          }),
        }))
        .filter((r) => !(query.entity && query.entity_only) || r.has_entity_activity);
      return { regions, total: regions.length };
    });
  });
}
