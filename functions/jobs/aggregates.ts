// The compute side of the aggregate kinds the jobs consumer runs. The kinds themselves (names,
// lifetimes) are declared once in shared/cache/namespaces.ts `aggregateKinds`; a kind marked for the
// consumer there and missing here fails the type check. The request path passes its kind directly.
import type { AggregateKind } from '../../shared/aggregates/kind';
import type { ConsumerAggregateName } from '../../shared/cache/namespaces';
import { metricsAggregate, rollupAggregate } from '../tracking/aggregate';
import { trendRollupAggregate } from '../trends/aggregate';
import { trendingAggregate } from '../entities/trending-aggregate';

const BY_NAME: Readonly<Record<ConsumerAggregateName, AggregateKind>> = {
  [metricsAggregate.name]: metricsAggregate,
  [rollupAggregate.name]: rollupAggregate,
  [trendRollupAggregate.name]: trendRollupAggregate,
  [trendingAggregate.name]: trendingAggregate,
};

export const AGGREGATE_KINDS: readonly AggregateKind[] = Object.values(BY_NAME);

export function aggregateKind(name: string): AggregateKind | undefined {
  return Object.hasOwn(BY_NAME, name) ? BY_NAME[name as ConsumerAggregateName] : undefined;
}
