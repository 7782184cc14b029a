// Feed area: /v2/feed, /v2/feed/{url_id}, /v2/live.
// The area app with the given route modules: every one in the all-in-one app (app.ts), one per
// route in the deployed Worker, which loads each on first use (index.ts).
import { areaWith, type RouteModule } from '../../shared/app';
import { FEED_AREA } from './options';

export const buildFeed = (modules: RouteModule[]) => areaWith(FEED_AREA, modules);
