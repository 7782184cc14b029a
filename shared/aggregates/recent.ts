// The recently asked aggregates the cron keeps warm: per owner (project, or project-less key), the
// newest questions of the last hour, so one tenant asking thousands of distinct questions keeps only
// its newest ones warm, never the whole warm queue.
import { redisNamespaces } from '../cache/namespaces';
import type { Store } from '../db/redis';
import type { AggregateJob } from './kind';

export const MAX_RECENT_PER_OWNER = 50;
const RECENT = redisNamespaces.recentAggregates.name;
const RECENT_WINDOW_MS = redisNamespaces.recentAggregates.lifetime;

const ownersKey = (store: Store) => store.key(RECENT, 'owners');
const ownerKey = (store: Store, owner: string) => store.key(RECENT, 'owner', owner);

/**
 * Remembers an asked aggregate for the cron warmer (wall time: cache freshness is not business time) in
 * its owner's list, cut to the newest MAX_RECENT_PER_OWNER in the same pipeline, and the owner in the
 * list of owners the cron walks. One Redis wave, beside the request's own (never a sequential trip).
 */
export async function noteAsked(store: Store, job: AggregateJob, owner: string, nowMs = Date.now()): Promise<void> {
  const mine = ownerKey(store, owner);
  // Auto-pipelined in this order: the cut runs after the add.
  await Promise.all([
    store.redis.zadd(ownersKey(store), { score: nowMs, member: owner }),
    store.redis.zadd(mine, { score: nowMs, member: JSON.stringify(job) }),
    store.redis.zremrangebyrank(mine, 0, -(MAX_RECENT_PER_OWNER + 1)),
    store.redis.expire(mine, RECENT_WINDOW_MS / 1000),
  ]);
}

/** A question that refused (its answer is a stored 4xx) leaves its owner's list: nothing to warm. */
export async function forgetAsked(store: Store, job: AggregateJob): Promise<void> {
  if (job.owner) await store.redis.zrem(ownerKey(store, job.owner), JSON.stringify(job));
}

/**
 * Recently asked aggregates (last hour) whose cached copy expires within `margin` seconds: at most
 * MAX_RECENT_PER_OWNER per owner, each owner's newest.
 */
export async function dueForWarming(store: Store, nowMs: number, margin = 180): Promise<AggregateJob[]> {
  const since = nowMs - RECENT_WINDOW_MS;
  await store.redis.zremrangebyscore(ownersKey(store), 0, since);
  const owners = await store.redis.zrange<string[]>(ownersKey(store), since, nowMs, { byScore: true });
  const lists = await Promise.all(
    owners.map((owner) => store.text.zrange<string[]>(ownerKey(store, String(owner)), since, nowMs, { byScore: true })),
  );
  const jobs = lists.flatMap((members) => members.slice(-MAX_RECENT_PER_OWNER).map((m) => JSON.parse(m) as AggregateJob));
  const ttls = await Promise.all(jobs.map((j) => store.redis.ttl(j.cacheKey)));
  return jobs.filter((_, i) => ttls[i] < margin);
}
