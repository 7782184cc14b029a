// The trends Worker: only this area's routes, each loaded on its first request (shared/lazy-area.ts).
// In the trends app's registration order (app.ts); tests/workers/lazy-areas.test.ts checks they agree.
import { lazyArea } from '../../shared/lazy-area';
import { TRENDS_AREA } from './options';

export default lazyArea(async (modules) => (await import('./area')).buildTrends(modules), {
  'GET /v1/trends': () => import('./list'),
  'GET /v1/trends/:trend_id': () => import('./detail'),
  'GET /v1/trends/:trend_id/articles': () => import('./articles'),
  'GET /v1/trends/:trend_id/parents': () => import('./parents'),
  'GET /v1/trends/:trend_id/children': () => import('./children'),
  'GET /v1/themes': () => import('./themes'),
  'GET /v1/themes/:theme_id/topics': () => import('./theme-topics'),
  'GET /v1/topics/:topic_id/trends': () => import('./topic-trends'),
  'GET /v1/trends/:trend_id/rollup': () => import('./rollup'),
}, { keyless: TRENDS_AREA });
