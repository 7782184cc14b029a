// The articles area's route table: /v1/articles (list, detail) and /v1/analytics/* (category analytics).
// One line per route, in registration order (shared/http/route-table.ts): its Worker (index.ts), the
// all-in-one app and the OpenAPI document are built from it.
import type { RouteTable } from '../../shared/http/route-table';
import { ARTICLES_AREA } from './options';

export const articlesRoutes: RouteTable = {
  options: ARTICLES_AREA,
  routes: [
    ['GET', '/v1/articles', () => import('./routes/list-articles')],
    ['GET', '/v1/articles/:id', () => import('./routes/get-article')],
    ['GET', '/v1/analytics/categories', () => import('./routes/get-category-analytics')],
  ],
};
