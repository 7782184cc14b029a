// Tracking lists area: /v1/tracking/*, and the project's /v1/usage.
import { createArea } from '../../shared/app';
import { register as registerUsage } from './usage';

export function trackingArea() {
  const area = createArea({ basePaths: ['/v1/tracking', '/v1/usage'], auth: true });
  registerUsage(area);
  return area;
}
