// Tracking lists area: /v1/tracking/*, and the project's /v1/usage.
// The area app with the given route modules: every one in the all-in-one app (app.ts), one per
// route in the deployed Worker, which loads each on first use (index.ts).
import { areaWith, type RouteModule } from '../../shared/app';
import { TRACKING_AREA } from './options';

export const buildTracking = (modules: RouteModule[]) => areaWith(TRACKING_AREA, modules);
