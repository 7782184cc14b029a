// Every tracking route, registered at once: the all-in-one app (functions/app.ts).
import { buildTracking } from './area';
import * as lists from './lists';
import * as list from './list';
import * as metrics from './metrics';
import * as rollup from './rollup';
import * as matches from './matches';
import * as usage from './usage';

export function trackingArea() {
  return buildTracking([lists, list, metrics, rollup, matches, usage]);
}
