// Entities area: /v1/entities*.
// The area app with the given route modules: every one in the all-in-one app (app.ts), one per
// route in the deployed Worker, which loads each on first use (index.ts).
import { areaWith, type RouteModule } from '../../shared/app';
import { ENTITIES_AREA } from './options';

export const buildEntities = (modules: RouteModule[]) => areaWith(ENTITIES_AREA, modules);
