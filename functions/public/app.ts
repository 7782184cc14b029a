// Public profile check area: /public/* needs no key. CORS and the isolate cache run before the
// request-scoped services; the per-IP limit guards whatever reads data.
import { createArea } from '../../shared/app';
import { register as registerBulk } from './bulk';
import { register as registerCheck } from './check';
import { publicEdge } from './edge';
import { publicLimit } from './limit';
import { register as registerQuery } from './query';
import { register as registerWidget } from './widget';

export function publicArea() {
  const area = createArea({ basePaths: ['/public'], auth: false, edge: [publicEdge()] });
  area.use('/public/*', publicLimit());
  for (const register of [registerCheck, registerBulk, registerQuery, registerWidget]) register(area);
  return area;
}
