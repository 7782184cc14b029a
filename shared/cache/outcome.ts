// How a cached answer was found, for the request's log line (`cache` field) and, for internal keys only,
// the `X-Aggregate-Cache` header: to anyone else it would tell whether another tenant asked the same
// question (docs/SECURITY.md "Tenants"). A private deployment (the benchmarks) may send it to every key
// (CACHE_OUTCOME_HEADER=all).
import type { Context } from 'hono';
import type { Env } from '../env';

/** hit: stored; miss: computed here; shared: joined an identical request's; bypass: Redis unreachable, not cached. */
export type CacheOutcome = 'hit' | 'miss' | 'shared' | 'bypass';

export function noteOutcome(c: Context<Env>, outcome: CacheOutcome): void {
  c.set('aggregateCache', outcome);
  if (c.get('auth')?.projectId === null || c.get('config')?.CACHE_OUTCOME_HEADER === 'all') c.header('X-Aggregate-Cache', outcome);
}
