// What an aggregate is (its kind, request, job) and the inline budget. The engine (engine.ts) caches
// and computes them once; serve.ts answers requests with them; warm.ts keeps the asked ones warm.
import type { Db } from '../db/client';
import type { Config } from '../env';
import type { Store } from '../db/redis';

/** How long a computed aggregate is kept in Redis, unless its kind says otherwise. */
export const AGGREGATE_TTL_SECONDS = 600;

/**
 * The inline budget, in the one cost unit (`inlineCost`): an aggregate estimated above it is queued
 * (503 `computing`), never computed inside a request (docs/SECURITY.md "Cost-based queueing").
 * AGGREGATE_INLINE_COST overrides it.
 */
export const DEFAULT_INLINE_COST = 250_000;

/**
 * The one cost unit of every estimate and of the budget: one item (a list item, a trend article) in one
 * market for one hour of the window. `weight` is what one such item-market-hour of a kind is worth
 * (default 1: a tracking list item). Each factor counts at least 1.
 */
export function inlineCost(items: number, markets: number, hours: number, weight = 1): number {
  return Math.max(1, items) * Math.max(1, markets) * Math.max(1, hours) * weight;
}

/** Whether an aggregate of estimated cost `cost` goes to the queue instead of being computed inline. */
export const overBudget = (config: Config, cost: number) => cost > (config.AGGREGATE_INLINE_COST ?? DEFAULT_INLINE_COST);

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
 * consumer has none, so `compute` must work without it. `V` is the computed value: what the cache
 * holds under the kind's key, so a route answering with it is checked against its schema (serve.ts).
 */
// biome-ignore lint/suspicious/noExplicitAny: the registry of kinds (functions/jobs/aggregates.ts) holds kinds of every request type; `compute` takes R, so only `any` admits them all.
export interface AggregateKind<R = any, H = unknown, V = unknown> {
  /** Unique and namespaced (`tracking.metrics`): part of cache keys and of queued jobs. */
  name: string;
  compute(services: AggregateServices, request: R, hint?: H): Promise<V>;
  /** What makes two requests the same question; default the whole request. Never include the key itself. */
  identity?(request: R): unknown;
  /** Cache lifetime; default AGGREGATE_TTL_SECONDS. */
  ttlSeconds?: number;
  /** Re-queue recently asked aggregates from the cron before they expire; default true. */
  warm?: boolean;
  /** The response a computed value makes; default the value itself as the JSON body, no headers. */
  respond?(value: V): { body: unknown; headers?: Record<string, string> };
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

export const ttlOf = (kind: AggregateKind) => kind.ttlSeconds ?? AGGREGATE_TTL_SECONDS;
