// The queue consumer's side of an aggregate: compute, store with the kind's TTL, release the queued lock.
import { pack, type CachedResponse } from '../cache/response';
import { computeWithAsOf, lockOf } from './engine';
import { ttlOf, type AggregateJob, type AggregateKind, type AggregateServices } from './kind';
import { forgetAsked } from './recent';
import { refusalOf, REFUSAL_TTL_SECONDS } from './refusal';

/**
 * Idempotent. A failure no retry fixes (refusal.ts) stores that refusal instead, leaves the warmer's
 * list and answers `refused` (the job is done); any other failure throws (retried).
 */
export async function completeAggregate(
  services: AggregateServices,
  kind: AggregateKind,
  job: AggregateJob,
): Promise<'stored' | 'refused'> {
  const { store } = services;
  let outcome: 'stored' | 'refused' = 'stored';
  let stored: CachedResponse;
  let ttl = ttlOf(kind);
  try {
    stored = (await computeWithAsOf(services, kind, job.request)).cached;
  } catch (err) {
    const refusal = refusalOf(err);
    if (!refusal) throw err;
    [stored, ttl, outcome] = [refusal, REFUSAL_TTL_SECONDS, 'refused'];
    await forgetAsked(store, job);
  }
  await store.redis.set(job.cacheKey, pack(stored), { ex: ttl });
  await store.redis.del(lockOf(job.cacheKey));
  return outcome;
}
