// The geo area's route table: served identically under /v1 and /v2 (`mirror`).
// One line per route, in registration order (shared/http/route-table.ts): its Worker (index.ts), the
// all-in-one app and the OpenAPI document are built from it.
import type { RouteTable } from '../../shared/http/route-table';
import { GEO_AREA } from './options';

export const geoRoutes: RouteTable = {
  options: GEO_AREA,
  // Each module registers its route once per version, under /v1 then /v2; its operationId names the version.
  mirror: ['v1', 'v2'],
  routes: [
    ['GET', '/geo/regions', () => import('./routes/list-regions')],
    ['GET', '/geo/regions/:alpha_2', () => import('./routes/get-region')],
    ['GET', '/geo/regions/:alpha_2/cities', () => import('./routes/list-cities')],
    ['GET', '/geo/languages', () => import('./routes/list-languages')],
  ],
};
