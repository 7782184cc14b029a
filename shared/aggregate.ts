// Cached aggregates with single flight, for every area. A request is answered from the Redis cache;
// on a miss exactly one caller across all isolates (the holder of a Redis lock) computes it, inline
// or through the jobs queue, and everyone else either waits briefly for that result (inline) or
// answers 503 `computing` with Retry-After (queued, or a leader slower than the wait budget). The
// lock has a TTL, so a leader that crashes without releasing it blocks nobody beyond that TTL.
import type { Context } from 'hono';
import { sha256Hex } from './auth/keys';
import type { Db } from './db/client';
import type { Config, Env } from './env';
import { coded } from './errors';
import type { Store } from './redis';

export const CACHE_TTL_SECONDS = 600;
/** The queued path's lock: held from the request that queues the job until the consumer stores it. */
export const QUEUED_LOCK_TTL_SECONDS = 60;
/** The inline path's lock: far above any inline computation, the bound a crashed leader can block. */
export const INLINE_LOCK_TTL_SECONDS = 20;
/** How long an inline follower waits for the leader's result before answering 503 `computing`. */
export const FOLLOWER_WAIT_MS = 3_000;
export const RETRY_AFTER_SECONDS = 15;
export const INLINE_RETRY_AFTER_SECONDS = 2;
const RECENT = 'recent-aggregates';
const RECENT_WINDOW_MS = 3_600_000;

/** What a compute function receives besides its request. */
export interface AggregateServices {
  db: Db;
  store: Store;
  config: Config;
  /** Business time (the clock), the same value the request path would use. */
  now: Date;
}

/**
 * One kind of aggregate. `R` is the request: plain JSON, because queued jobs carry it through the
 * queue. `H` is an optional hint the request path already loaded (e.g. the list row); the
 * consumer has none, so `compute` must work without it.
 */
export interface AggregateKind<R = any, H = unknown> {
  /** Unique and namespaced (`tracking.metrics`): part of cache keys and of queued jobs. */
  name: string;
  compute(services: AggregateServices, request: R, hint?: H): Promise<unknown>;
  /** What makes two requests the same question; default the whole request. Never include the key itself. */
  identity?(request: R): unknown;
  /** Cache lifetime; default CACHE_TTL_SECONDS. */
  ttlSeconds?: number;
  /** Re-queue recently asked aggregates from the cron before they expire; default true. */
  warm?: boolean;
}

export interface AggregateJob {
  type: 'aggregate';
  kind: string;
  request: unknown;
  cacheKey: string;
}

export interface ServeOptions<H> {
  hint?: H;
  /** Too expensive to compute inline: queue it (falls back to inline without a JOBS_QUEUE binding). */
  background?: boolean;
}

/** How the answer came about, in the `X-Aggregate-Cache` header: tests and benchmarks count `miss`. */
export type CacheOutcome = 'hit' | 'miss' | 'shared';

export async function aggregateKey(store: Store, kind: AggregateKind, request: unknown): Promise<string> {
  const identity = kind.identity ? kind.identity(request) : request;
  return store.key('agg', kind.name, await sha256Hex(JSON.stringify(identity)));
}

const lockOf = (cacheKey: string) => `${cacheKey}:lock`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function computing(seconds: number) {
  return coded(503, 'computing', `This aggregate is being computed; repeat the identical request in about ${seconds} seconds.`, {},
    { 'Retry-After': String(seconds) });
}

async function acquire(store: Store, cacheKey: string, token: string, ttl: number): Promise<boolean> {
  return (await store.redis.set(lockOf(cacheKey), token, { nx: true, ex: ttl })) === 'OK';
}

/** Releases the lock only if it is still ours (it may have expired and passed to someone else). */
async function release(store: Store, cacheKey: string, token: string): Promise<void> {
  const holder = await store.redis.get<string>(lockOf(cacheKey));
  if (holder === token) await store.redis.del(lockOf(cacheKey));
}

/** Computes and stores as the lock holder; the lock is released on success and on failure. */
async function lead<R, H>(services: AggregateServices, kind: AggregateKind<R, H>, request: R, cacheKey: string, token: string, hint?: H) {
  try {
    // A leader that finished between our miss and our lock: its result is there, use it.
    const late = await services.store.redis.get<unknown>(cacheKey);
    if (late != null) return { body: late, outcome: 'shared' as CacheOutcome };
    const body = await kind.compute(services, request, hint);
    await services.store.redis.set(cacheKey, body, { ex: kind.ttlSeconds ?? CACHE_TTL_SECONDS });
    return { body, outcome: 'miss' as CacheOutcome };
  } finally {
    await release(services.store, cacheKey, token).catch(() => undefined);
  }
}

/**
 * Follows a leader: polls for its result (the GETs of one poll travel as one pipeline), and takes
 * over when the lock is gone without a result (the leader failed). Gives up after FOLLOWER_WAIT_MS.
 */
async function follow<R, H>(services: AggregateServices, kind: AggregateKind<R, H>, request: R, cacheKey: string, token: string, hint?: H) {
  const { redis } = services.store;
  const deadline = Date.now() + FOLLOWER_WAIT_MS;
  for (let delay = 25; Date.now() < deadline; delay = Math.min(delay * 2, 200)) {
    await sleep(delay);
    const [body, holder] = await Promise.all([redis.get<unknown>(cacheKey), redis.get<string>(lockOf(cacheKey))]);
    if (body != null) return { body, outcome: 'shared' as CacheOutcome };
    if (holder == null && (await acquire(services.store, cacheKey, token, INLINE_LOCK_TTL_SECONDS))) {
      return lead(services, kind, request, cacheKey, token, hint);
    }
  }
  throw computing(INLINE_RETRY_AFTER_SECONDS);
}

/** Remembers an asked aggregate for the cron warmer (wall time: cache freshness is not business time). */
async function remember(store: Store, job: AggregateJob): Promise<void> {
  await store.redis.zadd(store.key(RECENT), { score: Date.now(), member: JSON.stringify(job) });
}

/**
 * Answers an admitted aggregate request: from the cache, or computed once across all callers
 * (inline), or queued (503 `computing`). Sets `X-Aggregate-Cache` to hit, miss or shared.
 */
export async function serveAggregate<R, H>(c: Context<Env>, kind: AggregateKind<R, H>, request: R, options: ServeOptions<H> = {}): Promise<unknown> {
  const { store, db, config, clock } = c.var;
  const cacheKey = await aggregateKey(store, kind, request);
  const cached = await store.redis.get<unknown>(cacheKey);
  if (cached != null) {
    c.header('X-Aggregate-Cache', 'hit');
    return cached;
  }
  const job: AggregateJob = { type: 'aggregate', kind: kind.name, request, cacheKey };
  if (kind.warm !== false) await remember(store, job);
  const token = crypto.randomUUID();
  const queue = c.env.JOBS_QUEUE;
  if (options.background && queue) {
    if (await acquire(store, cacheKey, token, QUEUED_LOCK_TTL_SECONDS)) {
      try {
        await queue.send(job);
      } catch (err) {
        await release(store, cacheKey, token).catch(() => undefined);
        throw err;
      }
    }
    throw computing(RETRY_AFTER_SECONDS);
  }
  const services: AggregateServices = { db, store, config, now: clock.now() };
  const result = (await acquire(store, cacheKey, token, INLINE_LOCK_TTL_SECONDS))
    ? await lead(services, kind, request, cacheKey, token, options.hint)
    : await follow(services, kind, request, cacheKey, token, options.hint);
  c.header('X-Aggregate-Cache', result.outcome);
  return result.body;
}

/** The consumer's side: compute, store with the kind's TTL, release the queued lock. Idempotent. */
export async function completeAggregate(services: AggregateServices, kind: AggregateKind, job: AggregateJob): Promise<void> {
  const body = await kind.compute(services, job.request);
  await services.store.redis.set(job.cacheKey, body, { ex: kind.ttlSeconds ?? CACHE_TTL_SECONDS });
  await services.store.redis.del(lockOf(job.cacheKey));
}

/** Recently asked aggregates (last hour) whose cached copy expires within `margin` seconds. */
export async function dueForWarming(store: Store, nowMs: number, margin = 180): Promise<AggregateJob[]> {
  const recent = store.key(RECENT);
  await store.redis.zremrangebyscore(recent, 0, nowMs - RECENT_WINDOW_MS);
  const members = await store.redis.zrange<string[]>(recent, nowMs - RECENT_WINDOW_MS, nowMs, { byScore: true });
  const jobs = members.map((m) => (typeof m === 'string' ? JSON.parse(m) : m) as AggregateJob);
  const ttls = await Promise.all(jobs.map((j) => store.redis.ttl(j.cacheKey)));
  return jobs.filter((_, i) => ttls[i] < margin);
}
