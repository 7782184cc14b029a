// Entities area: /v1/entities*.
// The area app with the given route modules: every one in the all-in-one app (app.ts), one per
// route in the deployed Worker, which loads each on first use (index.ts).
import { createArea, type RouteModule } from '../../shared/app';

export function buildEntities(modules: RouteModule[]) {
  const area = createArea({ basePaths: ['/v1/entities'], auth: true });
  for (const module of modules) module.register(area);
  return area;
}
