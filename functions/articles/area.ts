// Articles area: /v1/articles (list, detail) and /v1/analytics/* (category analytics).
// The area app with the given route modules: every one in the all-in-one app (app.ts), one per
// route in the deployed Worker, which loads each on first use (index.ts).
import { areaWith, type RouteModule } from '../../shared/app';
import { ARTICLES_AREA } from './options';

export const buildArticles = (modules: RouteModule[]) => areaWith(ARTICLES_AREA, modules);
