// The entities Worker: only this area's routes, each loaded on its first request (shared/lazy-area.ts).
// In the entities app's registration order (app.ts: `trending`
// before `{entity_name}`); tests/workers/lazy-areas.test.ts checks they agree.
import { lazyArea } from '../../shared/lazy-area';
import { ENTITIES_AREA } from './options';

export default lazyArea(async (modules) => (await import('./area')).buildEntities(modules), {
  'GET /v1/entities': () => import('./list'),
  'GET /v1/entities/trending': () => import('./trending'),
  'GET /v1/entities/:entity_name': () => import('./detail'),
  'GET /v1/entities/:entity_name/articles': () => import('./articles'),
}, { keyless: ENTITIES_AREA });
