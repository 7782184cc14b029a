// Cached aggregates with single flight, for every area. A request is answered from the Redis cache;
// on a miss exactly one caller across all isolates (the holder of a Redis lock) computes it, inline
// or through the jobs queue, and everyone else either waits briefly for that result (inline) or
// answers 503 `computing` with Retry-After (queued, or a leader slower than the wait budget). The
// lock has a TTL, so a leader that crashes without releasing it blocks nobody beyond that TTL.
// Inside one isolate, concurrent identical misses share the first one's answer (`flights`): they
// neither look it up nor poll Redis.
// No Hono here: serve.ts adapts a request to `Caller`, the consumer (warm.ts) calls `computeStored`.
import { sha256Hex } from '../hash';
import { namespaces, redisNamespaces } from '../cache/namespaces';
import { pack, toCached, unpack, type CachedResponse } from '../cache/response';
import type { Config, JobQueue } from '../env';
import { apiCodeOf, coded } from '../http/errors';
import { dataAsOf } from '../http/freshness';
import type { Store } from '../db/redis';
import { ttlOf, type AggregateJob, type AggregateKind, type AggregateServices, type ServeOptions } from './kind';
import type { CacheOutcome } from '../cache/outcome';
import { noteAsked } from './recent';

/** The queued path's lock: held from the request that queues the job until the consumer stores it. */
export const QUEUED_LOCK_TTL_SECONDS = 60;
/** The inline path's lock: far above any inline computation, the bound a crashed leader can block. */
export const INLINE_LOCK_TTL_SECONDS = 20;
/** How long an inline follower waits for the leader's result before answering 503 `computing`. */
export const FOLLOWER_WAIT_MS = 3_000;
export const RETRY_AFTER_SECONDS = 15;
export const INLINE_RETRY_AFTER_SECONDS = 2;

declare module '../cache/namespaces' {
  interface NamespaceValues {
    aggregateAnswers: CachedResponse;
    aggregateFlights: Served<unknown>;
  }
}

/**
 * Hits of this isolate, in front of Redis: a warm aggregate costs no Redis read here. Keyed by the
 * Redis endpoint and the full cache key (namespace, kind, identity: project, scope, parameters,
 * "now"), for ISOLATE_CACHE_SECONDS at most. Misses in flight (`flights`), by the same key: identical
 * requests join the first one's.
 */
const { held: answers, flights } = namespaces.aggregateAnswers;

/** Work that finishes after the answer (ctx.waitUntil). */
export type Later = (work: Promise<unknown>) => void;

/** Who asks, as the engine needs it: the services, the queue, the owner of the question, and a way to finish later. */
export interface Caller {
  services: AggregateServices;
  queue: JobQueue | undefined;
  /** Whose recently-asked list the question joins (shared/aggregates/recent.ts). */
  owner: string;
  later: Later;
}

/** The answer: as stored (the JSON of a `V`, the kind's value), and the value itself when this request computed it. */
export type Served<V> = { cached: CachedResponse; outcome: CacheOutcome } | { cached: CachedResponse; value: V; outcome: CacheOutcome };

export async function aggregateKey(store: Store, kind: AggregateKind, request: unknown): Promise<string> {
  const identity = kind.identity ? kind.identity(request) : request;
  return store.key(
    redisNamespaces.aggregates.name,
    redisNamespaces.aggregates.format,
    kind.name,
    await sha256Hex(JSON.stringify(identity)),
  );
}

/** The answer a computed value makes, as it is stored and sent, with the watermark read beside the computation. */
function cachedOf<V>(kind: AggregateKind<unknown, unknown, V>, value: V, asOf: string | null): Promise<CachedResponse> {
  const made = kind.respond ? kind.respond(value) : { body: value };
  return toCached(made.body, asOf, made.headers);
}

/** Computes the value and reads the data watermark in parallel (one wave of round trips). */
export async function computeWithAsOf<R, H, V>(services: AggregateServices, kind: AggregateKind<R, H, V>, request: R, hint?: H) {
  const [value, asOf] = await Promise.all([kind.compute(services, request, hint), dataAsOf(services.db, services.config)]);
  return { value, cached: await cachedOf(kind, value, asOf) };
}

const memoryKey = (config: Config, cacheKey: string) => `${config.UPSTASH_REDIS_REST_URL}|${cacheKey}`;

function remember(config: Config, kind: AggregateKind, cacheKey: string, cached: CachedResponse): void {
  const seconds = Math.min(config.ISOLATE_CACHE_SECONDS, ttlOf(kind));
  answers.set(memoryKey(config, cacheKey), cached, cached.text.length, seconds * 1000);
}

/** This isolate's copy (no round trip), or undefined. */
export function held(config: Config, cacheKey: string): CachedResponse | undefined {
  return config.ISOLATE_CACHE_SECONDS > 0 ? answers.get(memoryKey(config, cacheKey)) : undefined;
}

export const lockOf = (cacheKey: string) => `${cacheKey}:lock`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function computing(seconds: number) {
  return coded(
    'computing',
    `This aggregate is being computed; repeat the identical request in about ${seconds} seconds.`,
    {},
    { 'Retry-After': String(seconds) },
  );
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
async function lead<R, H, V>(
  caller: Caller,
  kind: AggregateKind<R, H, V>,
  request: R,
  cacheKey: string,
  token: string,
  hint?: H,
): Promise<Served<V>> {
  const { services, later } = caller;
  let cached: CachedResponse;
  let value: V;
  try {
    ({ value, cached } = await computeWithAsOf(services, kind, request, hint));
  } catch (err) {
    later(release(services.store, cacheKey, token).catch(() => undefined));
    throw err;
  }
  remember(services.config, kind, cacheKey, cached);
  // The answer stands even if Redis fails now; followers then time out into 503 `computing`.
  later(
    (async () => {
      await services.store.redis.set(cacheKey, pack(cached), { ex: ttlOf(kind) }).catch(() => undefined);
      await release(services.store, cacheKey, token).catch(() => undefined);
    })(),
  );
  return { cached, value, outcome: 'miss' };
}

/**
 * Follows a leader: polls for its result (the GETs of one poll travel as one pipeline), and takes
 * over when the lock is gone without a result (the leader failed). A poll that Redis does not answer
 * in time (a burst of followers on a busy machine) is just a poll without news. Gives up after
 * FOLLOWER_WAIT_MS with 503 `computing`.
 */
async function follow<R, H, V>(
  caller: Caller,
  kind: AggregateKind<R, H, V>,
  request: R,
  cacheKey: string,
  token: string,
  hint?: H,
): Promise<Served<V>> {
  const redis = caller.services.store.text;
  const deadline = Date.now() + FOLLOWER_WAIT_MS;
  for (let delay = 50; Date.now() < deadline; delay = Math.min(delay * 2, 250)) {
    await sleep(delay);
    const polled = await attempt(Promise.all([redis.get<string>(cacheKey), redis.get<string>(lockOf(cacheKey))]));
    if (polled === DOWN) continue;
    const [stored, holder] = polled;
    const cached = unpack(stored);
    if (cached) return { cached, outcome: 'shared' };
    if (holder == null && (await attempt(acquire(caller.services.store, cacheKey, token, INLINE_LOCK_TTL_SECONDS))) === true) {
      return lead(caller, kind, request, cacheKey, token, hint);
    }
  }
  throw computing(INLINE_RETRY_AFTER_SECONDS);
}

/**
 * Redis cannot be reached: no cache and no shared lock. A cheap aggregate is computed inline and not
 * cached (shared only with the identical requests of this isolate, `flights`); an expensive one cannot
 * be handed to the consumer reliably, so it answers 503 with Retry-After.
 */
async function degraded<R, H, V>(caller: Caller, kind: AggregateKind<R, H, V>, request: R, options: ServeOptions<H>): Promise<Served<V>> {
  if (options.background && caller.queue) {
    throw coded(
      'dependency_unavailable',
      'A dependency is briefly unavailable; retry after the Retry-After header.',
      {},
      { 'Retry-After': '5' },
    );
  }
  const { value, cached } = await computeWithAsOf(caller.services, kind, request, options.hint);
  return { cached, value, outcome: 'bypass' };
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
export async function serveCached<R, H, V>(
  caller: Caller,
  kind: AggregateKind<R, H, V>,
  request: R,
  admit: ServeOptions<H> | Promise<ServeOptions<H>>,
): Promise<Served<V>> {
  const { store, config } = caller.services;
  const admitted = Promise.resolve(admit);
  admitted.catch(() => undefined); // it may fail while the key is hashed: handled by Promise.all below
  const cacheKey = await aggregateKey(store, kind, request);
  const memory = held(config, cacheKey);
  if (memory) {
    await admitted;
    return { cached: memory, outcome: 'hit' };
  }
  const flightKey = memoryKey(config, cacheKey);
  if (flights.has(flightKey)) {
    const joined = shared(flightKey);
    joined.catch(() => undefined); // the request's own refusal (admitted) wins over a 503 `computing`
    await admitted;
    const cached = await joined;
    if (cached) return { cached, outcome: 'shared' };
  }
  // The lookup runs beside the admission (not after it): one wave of round trips.
  return flights.run(flightKey, () => miss(caller, kind, request, cacheKey, admitted)) as Promise<Served<V>>;
}

/**
 * The answer of the identical miss in flight in this isolate: undefined when it is gone or failed
 * (this request then goes its own way), its 503 `computing` when it got one, and 503 `computing` when it
 * is not back within FOLLOWER_WAIT_MS, as a follower polling Redis would answer.
 */
async function shared(flightKey: string): Promise<CachedResponse | undefined> {
  try {
    const flight = await flights.join(flightKey, FOLLOWER_WAIT_MS);
    if (flight === 'late') throw computing(INLINE_RETRY_AFTER_SECONDS);
    return flight === 'none' ? undefined : flight.value.cached;
  } catch (err) {
    if (apiCodeOf(err) === 'computing') throw err;
    return undefined;
  }
}

/** A miss of this isolate: Redis's copy, or the single flight across isolates (lead, follow or queue). */
async function miss<R, H, V>(
  caller: Caller,
  kind: AggregateKind<R, H, V>,
  request: R,
  cacheKey: string,
  admitted: Promise<ServeOptions<H>>,
): Promise<Served<V>> {
  const {
    services: { store, config },
    queue,
    later,
  } = caller;
  const token = crypto.randomUUID();
  // The lock's lifetime depends on the path, known only once admitted: the queued one (the longer) when queued can be.
  const ttl = queue ? QUEUED_LOCK_TTL_SECONDS : INLINE_LOCK_TTL_SECONDS;
  const looked = lookup(config, store, kind, cacheKey, token, ttl); // never rejects (attempt)
  const [options, { found, acquired }] = await Promise.all([admitted, looked]).catch(async (err) => {
    // Refused (403, 404, ...) while the lock was taken beside the lookup: give it back, or the next
    // admitted caller would follow a leader that never computes.
    if ((await looked).acquired === true) later(release(store, cacheKey, token).catch(() => undefined));
    throw err;
  });
  if (found === DOWN) return degraded(caller, kind, request, options);
  if (found) {
    if (acquired === true) later(release(store, cacheKey, token).catch(() => undefined));
    return { cached: found, outcome: 'hit' };
  }
  if (acquired === DOWN) return degraded(caller, kind, request, options);
  const job: AggregateJob = { type: 'aggregate', kind: kind.name, request, cacheKey, owner: caller.owner };
  if (kind.warm !== false) later(noteAsked(store, job, caller.owner).catch(() => undefined)); // warming is best effort
  if (options.background && queue) {
    if (acquired) {
      try {
        await queue.send(job);
      } catch (err) {
        later(release(store, cacheKey, token).catch(() => undefined));
        throw err;
      }
    }
    throw computing(RETRY_AFTER_SECONDS);
  }
  if (acquired && queue) {
    // Computed inline after all: the lock should not outlive a crash by the queued path's lifetime.
    later(store.redis.expire(lockOf(cacheKey), INLINE_LOCK_TTL_SECONDS).catch(() => undefined));
  }
  return acquired
    ? lead(caller, kind, request, cacheKey, token, options.hint)
    : follow(caller, kind, request, cacheKey, token, options.hint);
}
