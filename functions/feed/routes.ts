// The feed area's route table: /v2/feed, /v2/feed/{url_id}, /v2/live, /v2/live/stream.
// One line per route, in registration order (shared/http/route-table.ts): its Worker (index.ts), the
// all-in-one app and the OpenAPI document are built from it.
import type { RouteTable } from '../../shared/http/route-table';
import { FEED_AREA } from './options';

export const feedRoutes: RouteTable = {
  options: FEED_AREA,
  routes: [
    ['GET', '/v2/feed', () => import('./routes/list-feed')],
    ['GET', '/v2/feed/:url_id', () => import('./routes/get-feed-profiles')],
    ['GET', '/v2/live', () => import('./routes/list-live')],
    ['GET', '/v2/live/stream', () => import('./routes/stream-live')],
  ],
};
