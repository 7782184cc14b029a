// The registry of aggregate kinds the jobs consumer computes. An area with a queued or warmed
// aggregate adds its kinds here (one line each); the request path passes its kind directly.
import type { AggregateKind } from '../../shared/aggregates/kind';
import { metricsAggregate, rollupAggregate } from '../tracking/aggregate';
import { trendRollupAggregate } from '../trends/aggregate';
import { trendingAggregate } from '../entities/trending-aggregate';

export const AGGREGATE_KINDS: readonly AggregateKind[] = [metricsAggregate, rollupAggregate, trendRollupAggregate, trendingAggregate];

const byName = new Map(AGGREGATE_KINDS.map((kind) => [kind.name, kind]));

export function aggregateKind(name: string): AggregateKind | undefined {
  return byName.get(name);
}
