// Tracking lists area: /v1/tracking/* (routes arrive with the tracking-lists issue).
import { createArea } from '../../shared/app';

export function trackingArea() {
  return createArea({ basePaths: ['/v1/tracking'], auth: true });
}
