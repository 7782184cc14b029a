// The entities area's route table: /v1/entities*. `trending` comes before `:entity_name`, so that
// it is not taken for an entity called "trending".
// One line per route, in registration order (shared/http/route-table.ts): its Worker (index.ts), the
// all-in-one app and the OpenAPI document are built from it.
import type { RouteTable } from '../../shared/http/route-table';
import { ENTITIES_AREA } from './options';

export const entitiesRoutes: RouteTable = {
  options: ENTITIES_AREA,
  routes: [
    ['GET', '/v1/entities', () => import('./routes/list-entities')],
    ['GET', '/v1/entities/trending', () => import('./routes/list-trending-entities')],
    ['GET', '/v1/entities/:entity_name', () => import('./routes/get-entity')],
    ['GET', '/v1/entities/:entity_name/articles', () => import('./routes/list-entity-articles')],
  ],
};
