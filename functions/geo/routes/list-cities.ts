// GET /v{1,2}/geo/regions/{alpha_2}/cities: cities hosting Discover profiles.
import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../../../shared/http/app';
import type { Mount } from '../../../shared/http/route-table';
import { referenceRead } from '../../../shared/cache/reference';
import { notFound } from '../../../shared/http/errors';
import { errorResponses, keyed, queryBool } from '../../../shared/schemas/common';
import { assertCountryAllowed, scopeOf } from '../../../shared/scope/scope';
import { getRegion, listCities } from '../queries';
import { alpha2Param, CitySchema } from '../schemas';

const route = (version: string) =>
  createRoute({
    method: 'get',
    path: '/geo/regions/{alpha_2}/cities',
    operationId: `${version}GeoListCities`,
    tags: ['Geo'],
    summary: 'Cities of a region',
    description: 'Cities with Discover profiles, by name. A known region without profiles gives an empty `cities`.',
    security: keyed,
    request: { params: alpha2Param, query: z.object({ active_only: queryBool('Only cities with an active profile.') }) },
    responses: {
      200: {
        description: 'Cities.',
        content: {
          'application/json': {
            schema: z.object({ region: z.string().openapi({ example: 'US' }), cities: z.array(CitySchema) }).openapi('CityList'),
          },
        },
      },
      ...errorResponses(401, 403, 404, 422, 429, 503),
    },
  });

export function register(app: App, { version }: Mount) {
  app.openapi(route(version), async (c) => {
    const { db, auth } = c.var;
    const scope = scopeOf(auth);
    const code = assertCountryAllowed(scope, c.req.valid('param').alpha_2);
    const activeOnly = c.req.valid('query').active_only;
    // The key's scope was checked above; the answer depends on the region only.
    return referenceRead(c, 'geo.cities', null, { code, activeOnly }, async () => {
      if (!(await getRegion(db, scope, code))) throw notFound(`Region '${code}' not found`);
      return { region: code, cities: await listCities(db, code, activeOnly) };
    });
  });
}
