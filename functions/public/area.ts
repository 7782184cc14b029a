// Public profile check area: /public/* needs no key. CORS and the isolate cache run before the
// request-scoped services; the per-IP limit guards whatever reads data.
// The area app with the given route modules: every one in the all-in-one app (app.ts), one per
// route in the deployed Worker, which loads each on first use (index.ts).
import { createArea, type RouteModule } from '../../shared/app';
import { publicEdge } from './edge';
import { publicLimit } from './limit';

export function buildPublic(modules: RouteModule[]) {
  const area = createArea({ basePaths: ['/public'], auth: false, edge: [publicEdge()] });
  area.use('/public/*', publicLimit());
  for (const module of modules) module.register(area);
  return area;
}
