// Public profile check area: /public/* needs no key. CORS and the isolate cache run before the
// request-scoped services; the per-IP limit guards whatever reads data.
// The area app with the given route modules: every one in the all-in-one app (app.ts), one per
// route in the deployed Worker, which loads each on first use (index.ts).
import { areaWith, type RouteModule } from '../../shared/app';
import { BULK_BODY_MAX_BYTES, BULK_PATH } from './body-limits';
import { publicEdge } from './edge';
import { publicLimit } from './limit';

export const buildPublic = (modules: RouteModule[]) =>
  areaWith({ basePaths: ['/public'], auth: false, edge: [publicEdge()], after: [publicLimit()], bodyLimits: { [BULK_PATH]: BULK_BODY_MAX_BYTES } }, modules);
