// The geo Worker: only this area's routes, each loaded on its first request (shared/lazy-area.ts).
// In the geo app's registration order (app.ts); tests/workers/lazy-areas.test.ts checks they agree.
import { lazyArea } from '../../shared/lazy-area';
import { GEO_AREA } from './options';

export default lazyArea(async (modules) => (await import('./area')).buildGeo(modules), {
  'GET /:version{v[12]}/geo/regions': () => import('./regions'),
  'GET /:version{v[12]}/geo/regions/:alpha_2': () => import('./region'),
  'GET /:version{v[12]}/geo/regions/:alpha_2/cities': () => import('./region-cities'),
  'GET /:version{v[12]}/geo/languages': () => import('./languages'),
}, { keyless: GEO_AREA });
