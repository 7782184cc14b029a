// The tracking Worker: only this area's routes, each loaded on its first request (shared/lazy-area.ts).
// In the tracking app's registration order (app.ts); tests/workers/lazy-areas.test.ts checks they agree.
import { lazyArea } from '../../shared/lazy-area';
import { TRACKING_AREA } from './options';

export default lazyArea(async (modules) => (await import('./area')).buildTracking(modules), {
  'GET /v1/tracking/lists': () => import('./lists'),
  'GET /v1/tracking/lists/:list_id': () => import('./list'),
  'GET /v1/tracking/lists/:list_id/metrics': () => import('./metrics'),
  'GET /v1/tracking/lists/:list_id/rollup': () => import('./rollup'),
  'GET /v1/tracking/lists/:list_id/matches': () => import('./matches'),
  'GET /v1/usage': () => import('./usage'),
}, { keyless: TRACKING_AREA });
