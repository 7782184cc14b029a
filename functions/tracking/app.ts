// Tracking lists area: /v1/tracking/*, and the project's /v1/usage.
import { createArea } from '../../shared/app';
import { register as registerList } from './list';
import { register as registerMatches } from './matches';
import { register as registerMetrics } from './metrics';
import { register as registerRollup } from './rollup';
import { register as registerLists } from './lists';
import { register as registerUsage } from './usage';

export function trackingArea() {
  const area = createArea({ basePaths: ['/v1/tracking', '/v1/usage'], auth: true });
  for (const register of [registerLists, registerList, registerMetrics, registerRollup, registerMatches, registerUsage]) register(area);
  return area;
}
