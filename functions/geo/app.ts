// Every geo route, registered at once: the all-in-one app (functions/app.ts).
import { buildGeo } from './area';
import * as regions from './regions';
import * as region from './region';
import * as regionCities from './region-cities';
import * as languages from './languages';

export function geoArea() {
  return buildGeo([regions, region, regionCities, languages]);
}
