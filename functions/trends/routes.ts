// The trends area's route table: /v1/trends*, /v1/themes*, /v1/topics*.
// One line per route, in registration order (shared/http/route-table.ts): its Worker (index.ts), the
// all-in-one app and the OpenAPI document are built from it.
import type { RouteTable } from '../../shared/http/route-table';
import { TRENDS_AREA } from './options';

export const trendsRoutes: RouteTable = {
  options: TRENDS_AREA,
  routes: [
    ['GET', '/v1/trends', () => import('./routes/list-trends')],
    ['GET', '/v1/trends/:trend_id', () => import('./routes/get-trend')],
    ['GET', '/v1/trends/:trend_id/articles', () => import('./routes/list-trend-articles')],
    ['GET', '/v1/trends/:trend_id/parents', () => import('./routes/list-trend-parents')],
    ['GET', '/v1/trends/:trend_id/children', () => import('./routes/list-trend-children')],
    ['GET', '/v1/themes', () => import('./routes/list-themes')],
    ['GET', '/v1/themes/:theme_id/topics', () => import('./routes/list-theme-topics')],
    ['GET', '/v1/topics/:topic_id/trends', () => import('./routes/list-topic-trends')],
    ['GET', '/v1/trends/:trend_id/rollup', () => import('./routes/get-trend-rollup')],
  ],
};
