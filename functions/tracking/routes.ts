// The tracking area's route table: /v1/tracking/*, and the project's /v1/usage.
// One line per route, in registration order (shared/http/route-table.ts): its Worker (index.ts), the
// all-in-one app and the OpenAPI document are built from it.
import type { RouteTable } from '../../shared/http/route-table';
import { TRACKING_AREA } from './options';

export const trackingRoutes: RouteTable = {
  options: TRACKING_AREA,
  routes: [
    ['GET', '/v1/tracking/lists', () => import('./routes/list-tracking-lists')],
    ['GET', '/v1/tracking/lists/:list_id', () => import('./routes/get-tracking-list')],
    ['GET', '/v1/tracking/lists/:list_id/metrics', () => import('./routes/get-tracking-list-metrics')],
    ['GET', '/v1/tracking/lists/:list_id/rollup', () => import('./routes/get-tracking-list-rollup')],
    ['GET', '/v1/tracking/lists/:list_id/matches', () => import('./routes/get-tracking-list-matches')],
    ['GET', '/v1/tracking/lists/:list_id/matches/stream', () => import('./routes/stream-tracking-list-matches')],
    ['GET', '/v1/usage', () => import('./routes/get-usage')],
  ],
};
