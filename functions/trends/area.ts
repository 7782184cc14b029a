// Trends area: /v1/trends*, /v1/themes*, /v1/topics*.
// The area app with the given route modules: every one in the all-in-one app (app.ts), one per
// route in the deployed Worker, which loads each on first use (index.ts).
import { areaWith, type RouteModule } from '../../shared/app';
import { TRENDS_AREA } from './options';

export const buildTrends = (modules: RouteModule[]) => areaWith(TRENDS_AREA, modules);
