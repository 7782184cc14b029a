// Trends area: /v1/trends*, /v1/themes*, /v1/topics*.
import { createArea } from '../../shared/app';

export function trendsArea() {
  return createArea({ basePaths: ['/v1/trends', '/v1/themes', '/v1/topics'], auth: true });
}
