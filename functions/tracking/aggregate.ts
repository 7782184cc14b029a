// Slow aggregates (metrics, roll-ups) are served from the cache, computed inline when cheap, or
// queued: 503 `computing` + Retry-After, one job per identical request (single-flight lock),
// computed by the jobs consumer and stored with a TTL. The cron warmer re-runs recent ones.
import type { Context } from 'hono';
import type { AuthContext } from '../../shared/auth/types';
import { sha256Hex } from '../../shared/auth/keys';
import type { Db } from '../../shared/db/client';
import type { Env } from '../../shared/env';
import { coded } from '../../shared/errors';
import type { Store } from '../../shared/redis';
import { computeMetrics } from './metrics-compute';
import { listNotFound } from './project';
import { getList, type ListRow } from './queries';
import { computeRollup } from './rollup-compute';
import { resolveWindow } from '../../shared/window-scope';

export const CACHE_TTL_SECONDS = 600;
export const LOCK_TTL_SECONDS = 60;
export const RETRY_AFTER_SECONDS = 15;
/** Above this estimated cost (items x markets x window hours) an aggregate is queued. */
export const DEFAULT_INLINE_COST = 250_000;
const RECENT = 'recent-aggregates';

export interface AggregateRequest {
  route: 'metrics' | 'rollup';
  projectId: string;
  listId: string;
  query: Record<string, string | number | undefined>;
  auth: AuthContext;
}

export interface AggregateJob {
  type: 'aggregate';
  request: AggregateRequest;
  cacheKey: string;
}

/** Same question from the same scope = same key (the key itself is not part of it). */
export async function cacheKey(store: Store, request: AggregateRequest): Promise<string> {
  const { auth, ...rest } = request;
  const identity = JSON.stringify([rest, auth.allowedCountries, auth.historyDays]);
  return store.key('agg', request.route, await sha256Hex(identity));
}

/**
 * Resolves the window with `now` and computes the body; shared by the request path (which has the
 * list already) and the consumer.
 */
export async function runAggregate(db: Db, appUrl: string, request: AggregateRequest, now: Date, known?: ListRow) {
  const list = known ?? (await getList(db, request.projectId, request.listId, now));
  if (!list) throw listNotFound();
  const q = request.query as { country: string; lang: string; period: '24h' | '7d' | '30d' | 'custom'; date_from?: string; date_to?: string };
  if (request.route === 'rollup') {
    const scope = await resolveWindow(db, request.auth, now, q, 'day');
    return computeRollup(db, { list, scope, appUrl });
  }
  const grain = request.query.grain as 'hour' | 'day';
  const scope = await resolveWindow(db, request.auth, now, q, grain);
  return computeMetrics(db, { list, scope, grain, limit: Number(request.query.limit), offset: Number(request.query.offset), appUrl, now });
}

function estimatedCost(items: number, markets: number, period: string, from?: string, to?: string): number {
  const hours = period === 'custom' && from && to ? (Date.parse(to) - Date.parse(from)) / 3_600_000 : { '24h': 24, '7d': 168, '30d': 720 }[period] ?? 720;
  return Math.max(1, items) * Math.max(1, markets) * Math.max(1, hours);
}

export interface Admitted {
  list: ListRow;
  /** Items the request measures and markets it resolved to: its cost estimate. */
  items: number;
  markets: number;
}

/** Answers an admitted aggregate request from cache, inline, or by queueing it. */
export async function serveAggregate(c: Context<Env>, request: AggregateRequest, admitted: Admitted) {
  const { store, db, config, clock } = c.var;
  const key = await cacheKey(store, request);
  const cached = await store.redis.get<unknown>(key);
  if (cached) {
    c.header('X-Aggregate-Cache', 'hit');
    return cached;
  }
  const cost = estimatedCost(admitted.items, admitted.markets, String(request.query.period), request.query.date_from as string, request.query.date_to as string);
  const job: AggregateJob = { type: 'aggregate', request, cacheKey: key };
  await store.redis.zadd(store.key(RECENT), { score: Date.now(), member: JSON.stringify(job) });
  const queue = c.env.JOBS_QUEUE;
  if (cost <= (config.AGGREGATE_INLINE_COST ?? DEFAULT_INLINE_COST) || !queue) {
    const body = await runAggregate(db, config.APP_URL, request, clock.now(), admitted.list);
    await store.redis.set(key, body, { ex: CACHE_TTL_SECONDS });
    c.header('X-Aggregate-Cache', 'miss');
    return body;
  }
  const lock = await store.redis.set(`${key}:lock`, '1', { nx: true, ex: LOCK_TTL_SECONDS });
  if (lock === 'OK') await queue.send(job);
  throw coded(503, 'computing', `This aggregate is being computed; repeat the identical request in about ${RETRY_AFTER_SECONDS} seconds.`, {},
    { 'Retry-After': String(RETRY_AFTER_SECONDS) });
}

/** The consumer's side: compute, store with a TTL, release the lock. Idempotent. */
export async function completeAggregate(db: Db, store: Store, appUrl: string, job: AggregateJob, now: Date): Promise<void> {
  const body = await runAggregate(db, appUrl, job.request, now);
  await store.redis.set(job.cacheKey, body, { ex: CACHE_TTL_SECONDS });
  await store.redis.del(`${job.cacheKey}:lock`);
}

/** Recently asked aggregates (last hour) whose cached copy expires within `margin` seconds. */
export async function dueForWarming(store: Store, nowMs: number, margin = 180): Promise<AggregateJob[]> {
  const recent = store.key(RECENT);
  await store.redis.zremrangebyscore(recent, 0, nowMs - 3_600_000);
  const members = await store.redis.zrange<string[]>(recent, nowMs - 3_600_000, nowMs, { byScore: true });
  const jobs = members.map((m) => (typeof m === 'string' ? JSON.parse(m) : m) as AggregateJob);
  const ttls = await Promise.all(jobs.map((j) => store.redis.ttl(j.cacheKey)));
  return jobs.filter((_, i) => ttls[i] < margin);
}
