// Geo area: served identically under /v1/geo and /v2/geo.
import { createApp, createArea } from '../../shared/app';
import { register as registerLanguages } from './languages';
import { register as registerCities } from './region-cities';
import { register as registerRegion } from './region';
import { register as registerRegions } from './regions';

export function geoArea() {
  const area = createArea({ basePaths: ['/v1/geo', '/v2/geo'], auth: true });
  for (const version of ['v1', 'v2'] as const) {
    const routes = createApp();
    for (const register of [registerRegions, registerRegion, registerCities, registerLanguages]) register(routes, version);
    area.route(`/${version}/geo`, routes);
  }
  return area;
}
