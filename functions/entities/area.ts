// Entities area: /v1/entities*.
// The area app with the given route modules: every one in the all-in-one app (app.ts), one per
// route in the deployed Worker, which loads each on first use (index.ts).
import { areaWith, type RouteModule } from '../../shared/app';

export const buildEntities = (modules: RouteModule[]) => areaWith({ basePaths: ['/v1/entities'], auth: true }, modules);
