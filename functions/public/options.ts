// The public area's chain options: no key; CORS and the isolate cache (edge.ts) run before the
// request-scoped services, the per-IP limit (limit.ts) guards whatever reads data. Loaded with the
// area's first route rather than held by its Worker's router (routes.ts): they import the area's
// middleware. Built afresh for each area app, as they were when each app built its own chain.
import type { AreaOptions } from '../../shared/http/chain';
import { BULK_BODY_MAX_BYTES, BULK_PATH } from './body-limits';
import { publicEdge } from './edge';
import { publicLimit } from './limit';

export const publicArea = (): AreaOptions => ({
  basePaths: ['/public'],
  auth: false,
  edge: [publicEdge()],
  after: [publicLimit()],
  bodyLimits: { [BULK_PATH]: BULK_BODY_MAX_BYTES },
});
