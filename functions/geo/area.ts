// Geo area: served identically under /v1/geo and /v2/geo.
// The area app with the given route modules: every one in the all-in-one app (app.ts), one per
// route in the deployed Worker, which loads each on first use (index.ts).
import { createApp, createArea, type App } from '../../shared/app';
import { GEO_AREA } from './options';

/** A geo route module registers its route under one version's prefix. */
export interface GeoRoute {
  register(app: App, version: string): void;
}

export function buildGeo(modules: GeoRoute[]) {
  const area = createArea(GEO_AREA);
  for (const version of ['v1', 'v2'] as const) {
    const routes = createApp();
    for (const module of modules) module.register(routes, version);
    area.route(`/${version}/geo`, routes);
  }
  return area;
}
