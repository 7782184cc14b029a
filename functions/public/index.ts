// The public Worker: only this area's routes, each loaded on its first request (shared/lazy-area.ts).
// In the public app's registration order (app.ts); tests/workers/lazy-areas.test.ts checks they agree.
import { lazyArea } from '../../shared/lazy-area';

export default lazyArea(async (modules) => (await import('./area')).buildPublic(modules), {
  'GET /public/platform-profile': () => import('./check'),
  'POST /public/platform-profile/bulk': () => import('./bulk'),
  'GET /public/platform-profile/query': () => import('./query'),
  'GET /public/widget.js': () => import('./widget'),
  'GET /public/widget-demo': () => import('./widget'),
});
