// The feed Worker: only this area's routes, each loaded on its first request (shared/lazy-area.ts).
// In the feed app's registration order (app.ts); tests/workers/lazy-areas.test.ts checks they agree.
import { lazyArea } from '../../shared/lazy-area';
import { FEED_AREA } from './options';

export default lazyArea(async (modules) => (await import('./area')).buildFeed(modules), {
  'GET /v2/feed': () => import('./feed'),
  'GET /v2/feed/:url_id': () => import('./profile'),
  'GET /v2/live': () => import('./live'),
}, { keyless: FEED_AREA });
