// Entities area: /v1/entities*.
import { createArea } from '../../shared/app';

export function entitiesArea() {
  return createArea({ basePaths: ['/v1/entities'], auth: true });
}
