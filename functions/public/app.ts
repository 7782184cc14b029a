// Public profile check area: /public/* needs no key.
import { createArea } from '../../shared/app';

export function publicArea() {
  return createArea({ basePaths: ['/public'], auth: false });
}
