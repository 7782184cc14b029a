// The articles Worker: only this area's routes, each loaded on its first request (shared/lazy-area.ts).
// In the articles app's registration order (app.ts); tests/workers/lazy-areas.test.ts checks they agree.
import { lazyArea } from '../../shared/lazy-area';
import { ARTICLES_AREA } from './options';

export default lazyArea(async (modules) => (await import('./area')).buildArticles(modules), {
  'GET /v1/articles': () => import('./list'),
  'GET /v1/articles/:id': () => import('./article'),
  'GET /v1/analytics/categories': () => import('./categories'),
}, { keyless: ARTICLES_AREA });
