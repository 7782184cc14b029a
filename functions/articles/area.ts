// Articles area: /v1/articles (list, detail) and /v1/analytics/* (category analytics).
// The area app with the given route modules: every one in the all-in-one app (app.ts), one per
// route in the deployed Worker, which loads each on first use (index.ts).
import { createArea, type RouteModule } from '../../shared/app';

export function buildArticles(modules: RouteModule[]) {
  const area = createArea({ basePaths: ['/v1/articles', '/v1/analytics'], auth: true });
  for (const module of modules) module.register(area);
  return area;
}
