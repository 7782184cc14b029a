// The tracking area's route table: /v1/tracking/*, and the project's /v1/usage.
// One line per route, in registration order (shared/route-table.ts): its Worker (index.ts), the
// all-in-one app and the OpenAPI document are built from it.
import type { RouteTable } from '../../shared/route-table';
import { TRACKING_AREA } from './options';

export const trackingRoutes: RouteTable = {
  options: TRACKING_AREA,
  routes: [
    ['GET', '/v1/tracking/lists', () => import('./lists')],
    ['GET', '/v1/tracking/lists/:list_id', () => import('./list')],
    ['GET', '/v1/tracking/lists/:list_id/metrics', () => import('./metrics')],
    ['GET', '/v1/tracking/lists/:list_id/rollup', () => import('./rollup')],
    ['GET', '/v1/tracking/lists/:list_id/matches', () => import('./matches')],
    ['GET', '/v1/tracking/lists/:list_id/matches/stream', () => import('./matches-stream')],
    ['GET', '/v1/usage', () => import('./usage')],
  ],
};
