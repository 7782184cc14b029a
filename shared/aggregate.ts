// Cached aggregates with single flight, for every area. A request is answered from the Redis cache;
// on a miss exactly one caller across all isolates (the holder of a Redis lock) computes it, inline
// or through the jobs queue, and everyone else either waits briefly for that result (inline) or
// answers 503 `computing` with Retry-After (queued, or a leader slower than the wait budget). The
// lock has a TTL, so a leader that crashes without releasing it blocks nobody beyond that TTL.
import type { Context } from 'hono';
import { refusalOf, REFUSAL_TTL_SECONDS, throwIfRefusal } from './aggregate-refusal';
import { sha256Hex } from './hash';
import { IsolateCache } from './cache/memory';
import { afterResponse } from './after-response';
import { pack, respond, toCached, unpack, type CachedResponse } from './cache/response';
import type { Db } from './db/client';
import type { Config, Env } from './env';
import { coded } from './errors';
import { DATA_AS_OF, dataAsOf } from './freshness';
import type { Store } from './redis';

export const CACHE_TTL_SECONDS = 600;
/**
 * The inline budget: an aggregate whose estimated cost (rows it reads: items x markets x window buckets,
 * per kind; docs/SECURITY.md "Cost-based queueing") is above it is queued (503 `computing`), never
 * computed inside a request. AGGREGATE_INLINE_COST overrides it.
 */
export const DEFAULT_INLINE_COST = 250_000;

/** Whether an aggregate of estimated cost `cost` goes to the queue instead of being computed inline. */
export const overBudget = (config: Config, cost: number) => cost > (config.AGGREGATE_INLINE_COST ?? DEFAULT_INLINE_COST);
/** The queued path's lock: held from the request that queues the job until the consumer stores it. */
export const QUEUED_LOCK_TTL_SECONDS = 60;
/** The inline path's lock: far above any inline computation, the bound a crashed leader can block. */
export const INLINE_LOCK_TTL_SECONDS = 20;
/** How long an inline follower waits for the leader's result before answering 503 `computing`. */
export const FOLLOWER_WAIT_MS = 3_000;
export const RETRY_AFTER_SECONDS = 15;
export const INLINE_RETRY_AFTER_SECONDS = 2;
const RECENT = 'recent-aggregates';
/** Stored answers are packed responses (shared/cache/response.ts); the segment keeps older formats apart. */
const FORMAT = 'r2';

/**
 * Hits of this isolate, in front of Redis: a warm aggregate costs no Redis read here. Keyed by the
 * Redis endpoint and the full cache key (namespace, kind, identity: project, scope, parameters,
 * "now"), for ISOLATE_CACHE_SECONDS at most; bounded in entries and bytes.
 */
const answers = new IsolateCache<CachedResponse>({ entries: 256, bytes: 32 * 1024 * 1024 });
const RECENT_WINDOW_MS = 3_600_000;

/** What a compute function receives besides its request. */
export interface AggregateServices {
  db: Db;
  store: Store;
  config: Config;
  /** Business time (the clock), the same value the request path would use. */
  now: Date;
}

/** Work that finishes after the answer (ctx.waitUntil). */
type Later = (work: Promise<unknown>) => void;

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
  /** The response a computed value makes; default the value itself as the JSON body, no headers. */
  respond?(value: unknown): { body: unknown; headers?: Record<string, string> };
}

export interface AggregateJob {
  type: 'aggregate';
  kind: string;
  request: unknown;
  cacheKey: string;
  /** Who asked it (project, or `key:<id>`): whose recently-asked list holds it (absent in older jobs). */
  owner?: string;
}

export interface ServeOptions<H> {
  hint?: H;
  /** Too expensive to compute inline: queue it (falls back to inline without a JOBS_QUEUE binding). */
  background?: boolean;
}

/** How the answer came about, in the `X-Aggregate-Cache` header: tests and benchmarks count `miss`. */
export type CacheOutcome = 'hit' | 'miss' | 'shared' | 'bypass';

/**
 * Records the outcome for the request's log line; the `X-Aggregate-Cache` header goes to internal keys
 * (no project) only: to anyone else it would tell whether another tenant asked the same question (issue 19).
 * A private deployment (the benchmarks) may send it to every key (CACHE_OUTCOME_HEADER=all).
 */
function noteOutcome(c: Context<Env>, outcome: CacheOutcome): void {
  c.set('aggregateCache', outcome);
  if (c.get('auth')?.projectId === null || c.get('config')?.CACHE_OUTCOME_HEADER === 'all') c.header('X-Aggregate-Cache', outcome);
}

export async function aggregateKey(store: Store, kind: AggregateKind, request: unknown): Promise<string> {
  const identity = kind.identity ? kind.identity(request) : request;
  return store.key('agg', FORMAT, kind.name, await sha256Hex(JSON.stringify(identity)));
}

/** The answer a computed value makes, as it is stored and sent, with the watermark read beside the computation. */
function cachedOf(kind: AggregateKind, value: unknown, asOf: string | null): Promise<CachedResponse> {
  const made = kind.respond ? kind.respond(value) : { body: value };
  return toCached(made.body, asOf, made.headers);
}

/** Computes the value and reads the data watermark in parallel (one wave of round trips). */
async function computeWithAsOf<R, H>(services: AggregateServices, kind: AggregateKind<R, H>, request: R, hint?: H) {
  const [value, asOf] = await Promise.all([kind.compute(services, request, hint), dataAsOf(services.db, services.config)]);
  return { value, cached: await cachedOf(kind, value, asOf) };
}

const memoryKey = (config: Config, cacheKey: string) => `${config.UPSTASH_REDIS_REST_URL}|${cacheKey}`;

function remember(config: Config, kind: AggregateKind, cacheKey: string, cached: CachedResponse): void {
  const seconds = Math.min(config.ISOLATE_CACHE_SECONDS, kind.ttlSeconds ?? CACHE_TTL_SECONDS);
  answers.set(memoryKey(config, cacheKey), cached, cached.text.length, seconds * 1000);
}

const lockOf = (cacheKey: string) => `${cacheKey}:lock`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function computing(seconds: number) {
  return coded('computing', `This aggregate is being computed; repeat the identical request in about ${seconds} seconds.`, {},
    { 'Retry-After': String(seconds) });
}

async function acquire(store: Store, cacheKey: string, token: string, ttl: number): Promise<boolean> {
  return (await store.redis.set(lockOf(cacheKey), token, { nx: true, ex: ttl })) === 'OK';
}

const DOWN = Symbol('redis unreachable');

async function attempt<T>(call: Promise<T>): Promise<T | typeof DOWN> {
  try {
    return await call;
  } catch {
    return DOWN;
  }
}

/** Releases the lock only if it is still ours (it may have expired and passed to someone else). */
async function release(store: Store, cacheKey: string, token: string): Promise<void> {
  const holder = await store.text.get<string>(lockOf(cacheKey));
  if (holder === token) await store.redis.del(lockOf(cacheKey));
}

/**
 * Computes as the lock holder. Storing the answer and releasing the lock (in that order: a follower
 * that finds the lock gone finds the answer) go off the critical path; on failure the lock is released too.
 */
async function lead<R, H>(services: AggregateServices, later: Later, kind: AggregateKind<R, H>, request: R, cacheKey: string, token: string, hint?: H): Promise<Served> {
  let cached: CachedResponse;
  let value: unknown;
  try {
    ({ value, cached } = await computeWithAsOf(services, kind, request, hint));
  } catch (err) {
    later(release(services.store, cacheKey, token).catch(() => undefined));
    throw err;
  }
  remember(services.config, kind, cacheKey, cached);
  // The answer stands even if Redis fails now; followers then time out into 503 `computing`.
  later((async () => {
    await services.store.redis.set(cacheKey, pack(cached), { ex: kind.ttlSeconds ?? CACHE_TTL_SECONDS }).catch(() => undefined);
    await release(services.store, cacheKey, token).catch(() => undefined);
  })());
  return { cached, value, outcome: 'miss' };
}

/**
 * Follows a leader: polls for its result (the GETs of one poll travel as one pipeline), and takes
 * over when the lock is gone without a result (the leader failed). A poll that Redis does not answer
 * in time (a burst of followers on a busy machine) is just a poll without news. Gives up after
 * FOLLOWER_WAIT_MS with 503 `computing`.
 */
async function follow<R, H>(services: AggregateServices, later: Later, kind: AggregateKind<R, H>, request: R, cacheKey: string, token: string, hint?: H): Promise<Served> {
  const redis = services.store.text;
  const deadline = Date.now() + FOLLOWER_WAIT_MS;
  for (let delay = 50; Date.now() < deadline; delay = Math.min(delay * 2, 250)) {
    await sleep(delay);
    const polled = await attempt(Promise.all([redis.get<string>(cacheKey), redis.get<string>(lockOf(cacheKey))]));
    if (polled === DOWN) continue;
    const [stored, holder] = polled;
    const cached = unpack(stored);
    if (cached) return { cached, outcome: 'shared' };
    if (holder == null && (await attempt(acquire(services.store, cacheKey, token, INLINE_LOCK_TTL_SECONDS))) === true) {
      return lead(services, later, kind, request, cacheKey, token, hint);
    }
  }
  throw computing(INLINE_RETRY_AFTER_SECONDS);
}

/**
 * Most recently asked aggregates the cron keeps warm per project (or per project-less key): one tenant
 * asking thousands of distinct questions keeps only its newest ones warm, never the whole warm queue.
 */
export const MAX_RECENT_PER_OWNER = 50;

/** Who an asked aggregate is counted against: the project, or the key when it has none. */
export const ownerOf = (c: Context<Env>) => c.var.auth?.projectId ?? `key:${c.var.auth?.keyId ?? 'none'}`;

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

/**
 * Redis cannot be reached: no cache and no shared lock. A cheap aggregate is computed inline and not
 * cached (no coalescing: sharing one promise across requests is unsafe in a Worker isolate); an
 * expensive one cannot be handed to the consumer reliably, so it answers 503 with Retry-After.
 */
async function degraded<R, H>(c: Context<Env>, kind: AggregateKind<R, H>, request: R, options: ServeOptions<H>): Promise<Served> {
  if (options.background && c.env.JOBS_QUEUE) {
    throw coded('dependency_unavailable', 'A dependency is briefly unavailable; retry after the Retry-After header.', {}, { 'Retry-After': '5' });
  }
  const { db, store, config, clock } = c.var;
  const { value, cached } = await computeWithAsOf({ db, store, config, now: clock.now() }, kind, request, options.hint);
  return { cached, value, outcome: 'bypass' };
}

interface Served {
  cached: CachedResponse;
  /** The computed value, when this request computed it. */
  value?: unknown;
  outcome: CacheOutcome;
}

/** This isolate's copy (no round trip), or undefined. */
function held(config: Config, cacheKey: string): CachedResponse | undefined {
  return config.ISOLATE_CACHE_SECONDS > 0 ? answers.get(memoryKey(config, cacheKey)) : undefined;
}

interface Lookup {
  /** The stored answer; null on a miss, DOWN when Redis cannot answer. */
  found: CachedResponse | null | typeof DOWN;
  /** Whether this request took the single-flight lock (asked beside the lookup: one round trip). */
  acquired: boolean | typeof DOWN;
}

/** Redis's copy (then kept here too) and the lock, in one wave: a miss needs no second Redis call to lead. */
async function lookup(config: Config, store: Store, kind: AggregateKind, cacheKey: string, token: string, ttl: number): Promise<Lookup> {
  const [stored, acquired] = await Promise.all([attempt(store.text.get<string>(cacheKey)), attempt(acquire(store, cacheKey, token, ttl))]);
  if (stored === DOWN) return { found: DOWN, acquired };
  const cached = unpack(stored) ?? null;
  if (cached) remember(config, kind, cacheKey, cached);
  return { found: cached, acquired };
}

/**
 * An admitted aggregate request: from the cache, or computed once across all callers (inline), or
 * queued (503 `computing`). The cache is read while `admit` (the request's own checks, e.g. the
 * list's existence) runs; its errors win over a hit.
 */
async function serve<R, H>(c: Context<Env>, kind: AggregateKind<R, H>, request: R, admit: ServeOptions<H> | Promise<ServeOptions<H>>): Promise<Served> {
  const { store, db, config, clock } = c.var;
  const admitted = Promise.resolve(admit);
  admitted.catch(() => undefined); // it may fail while the key is hashed: handled by Promise.all below
  const cacheKey = await aggregateKey(store, kind, request);
  const memory = held(config, cacheKey);
  if (memory) return { cached: memory, outcome: (await admitted, 'hit') };
  const token = crypto.randomUUID();
  const queue = c.env.JOBS_QUEUE;
  // The lock's lifetime depends on the path, known only once admitted: the queued one (the longer) when queued can be.
  const ttl = queue ? QUEUED_LOCK_TTL_SECONDS : INLINE_LOCK_TTL_SECONDS;
  const afterwards: Later = (work) => void afterResponse(c, work);
  const looked = lookup(config, store, kind, cacheKey, token, ttl); // never rejects (attempt)
  const [options, { found, acquired }] = await Promise.all([admitted, looked]).catch(async (err) => {
    // Refused (403, 404, ...) while the lock was taken beside the lookup: give it back, or the next
    // admitted caller would follow a leader that never computes.
    if ((await looked).acquired === true) afterwards(release(store, cacheKey, token).catch(() => undefined));
    throw err;
  });
  const services: AggregateServices = { db, store, config, now: clock.now() };
  if (found === DOWN) return degraded(c, kind, request, options);
  if (found) {
    if (acquired === true) afterwards(release(store, cacheKey, token).catch(() => undefined));
    return { cached: found, outcome: 'hit' };
  }
  if (acquired === DOWN) return degraded(c, kind, request, options);
  const owner = ownerOf(c);
  const job: AggregateJob = { type: 'aggregate', kind: kind.name, request, cacheKey, owner };
  if (kind.warm !== false) afterwards(noteAsked(store, job, owner).catch(() => undefined)); // warming is best effort
  if (options.background && queue) {
    if (acquired) {
      try {
        await queue.send(job);
      } catch (err) {
        afterwards(release(store, cacheKey, token).catch(() => undefined));
        throw err;
      }
    }
    throw computing(RETRY_AFTER_SECONDS);
  }
  if (acquired && queue) {
    // Computed inline after all: the lock should not outlive a crash by the queued path's lifetime.
    afterwards(store.redis.expire(lockOf(cacheKey), INLINE_LOCK_TTL_SECONDS).catch(() => undefined));
  }
  return acquired
    ? lead(services, afterwards, kind, request, cacheKey, token, options.hint)
    : follow(services, afterwards, kind, request, cacheKey, token, options.hint);
}

/**
 * The aggregate's value (for routes that wrap it in a larger answer). Notes the outcome (hit, miss or
 * shared, or bypass while Redis is unreachable; `X-Aggregate-Cache` for internal keys). For kinds without `respond`.
 */
export async function serveAggregate<R, H>(
  c: Context<Env>, kind: AggregateKind<R, H>, request: R, options: ServeOptions<H> | Promise<ServeOptions<H>> = {},
): Promise<unknown> {
  const served = await serve(c, kind, request, options);
  throwIfRefusal(served.cached);
  noteOutcome(c, served.outcome);
  // The answer built from the value reports the watermark the value was computed with (shared/freshness.ts).
  const asOf = served.cached.headers[DATA_AS_OF];
  if (asOf) c.header(DATA_AS_OF, asOf);
  return 'value' in served ? served.value : JSON.parse(served.cached.text);
}

/**
 * The aggregate as the whole 200 answer, sent as stored (text, ETag, headers): a hit costs no
 * parse, stringify or hash. `admit` may be a promise: the cache lookup runs beside it.
 */
export async function serveAggregateResponse<R, H>(
  c: Context<Env>, kind: AggregateKind<R, H>, request: R, admit: ServeOptions<H> | Promise<ServeOptions<H>> = {},
): Promise<Response> {
  const served = await serve(c, kind, request, admit);
  throwIfRefusal(served.cached);
  noteOutcome(c, served.outcome);
  return respond(c, served.cached, served.outcome === 'hit' || served.outcome === 'shared');
}

/**
 * The consumer's side: compute, store with the kind's TTL, release the queued lock. Idempotent. A
 * failure no retry fixes (shared/aggregate-refusal.ts) stores that refusal instead, leaves the warmer's
 * list and answers `refused` (the job is done); any other failure throws (retried).
 */
export async function completeAggregate(services: AggregateServices, kind: AggregateKind, job: AggregateJob): Promise<'stored' | 'refused'> {
  const { store } = services;
  let outcome: 'stored' | 'refused' = 'stored';
  let stored: CachedResponse;
  let ttl = kind.ttlSeconds ?? CACHE_TTL_SECONDS;
  try {
    stored = (await computeWithAsOf(services, kind, job.request)).cached;
  } catch (err) {
    const refusal = refusalOf(err);
    if (!refusal) throw err;
    [stored, ttl, outcome] = [refusal, REFUSAL_TTL_SECONDS, 'refused'];
    if (job.owner) await store.redis.zrem(ownerKey(store, job.owner), JSON.stringify(job));
  }
  await store.redis.set(job.cacheKey, pack(stored), { ex: ttl });
  await store.redis.del(lockOf(job.cacheKey));
  return outcome;
}

/**
 * Recently asked aggregates (last hour) whose cached copy expires within `margin` seconds: at most
 * MAX_RECENT_PER_OWNER per owner, each owner's newest.
 */
export async function dueForWarming(store: Store, nowMs: number, margin = 180): Promise<AggregateJob[]> {
  const since = nowMs - RECENT_WINDOW_MS;
  await store.redis.zremrangebyscore(ownersKey(store), 0, since);
  const owners = await store.redis.zrange<string[]>(ownersKey(store), since, nowMs, { byScore: true });
  const lists = await Promise.all(owners.map((owner) => store.text.zrange<string[]>(ownerKey(store, String(owner)), since, nowMs, { byScore: true })));
  const jobs = lists.flatMap((members) => members.slice(-MAX_RECENT_PER_OWNER).map((m) => JSON.parse(m) as AggregateJob));
  const ttls = await Promise.all(jobs.map((j) => store.redis.ttl(j.cacheKey)));
  return jobs.filter((_, i) => ttls[i] < margin);
}
