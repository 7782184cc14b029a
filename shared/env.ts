// The one Env type of every Worker: bindings validated once at the edge, request-scoped services.
import { z } from 'zod';
import type { Db } from './db/client';
import type { Store } from './redis';
import type { Clock } from './clock';
import type { AuthContext } from './auth/types';
import type { LimitState } from './limits/check';

const bindingsSchema = z.object({
  DATABASE_URL: z.string().min(1),
  /** Local gateway only: Neon HTTP SQL endpoint (production derives it from the host). */
  NEON_HTTP_ENDPOINT: z.string().optional(),
  /** Local gateway only: `host:port/v1` of the WebSocket relay (transactions, scans). */
  NEON_WS_PROXY: z.string().optional(),
  UPSTASH_REDIS_REST_URL: z.string().url(),
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1),
  /** Namespace for every Redis key; lets several test databases share one Redis. */
  REDIS_PREFIX: z.string().default(''),
  APP_URL: z.string().url().default('https://app.example.com'),
  /**
   * statement_timeout (ms) of a request's queries, set in the same HTTP transaction as each query
   * (shared/db/timeout.ts); a query past it answers 503 + Retry-After. Default 5,000.
   */
  STATEMENT_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  /** statement_timeout (ms) of the jobs Worker's queries (queue consumer and cron). Default 60,000. */
  JOB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  /** Estimated cost above which metrics/roll-ups are queued instead of computed inline. */
  AGGREGATE_INLINE_COST: z.coerce.number().positive().optional(),
  /**
   * Seconds an isolate keeps a cached aggregate in memory in front of Redis (capped by the kind's
   * Redis TTL); 0 turns the memory layer off.
   */
  ISOLATE_CACHE_SECONDS: z.coerce.number().int().min(0).default(10),
  /** Seconds reference reads (geo) are kept in isolate memory and the Workers Cache API; 0 = uncached. */
  REFERENCE_CACHE_SECONDS: z.coerce.number().int().min(0).default(60),
  /** Public routes (no key): requests per minute per client IP; a bulk check counts one per domain. */
  PUBLIC_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(300),
  /**
   * HMAC key of feed cursors (shared/cursor.ts). Only a Worker secret (`wrangler secret put CURSOR_SECRET
   * --env feed`, and `--env mcp`); never in wrangler.toml. `npm start` and the tests bind the dev-only
   * value, which is refused outside ENVIRONMENT=development (paging then falls back to offsets).
   */
  CURSOR_SECRET: z.union([z.literal('').transform(() => undefined), z.string().min(16)]).optional(),
  /** `development` where `npm start` and the tests run (scripts/dev.ts, vitest.config.ts); unset in deployed Workers. */
  ENVIRONMENT: z.string().optional(),
  /**
   * Who is sent `X-Aggregate-Cache`: internal keys (default; to a project key it would tell whether
   * another tenant asked the same question), or `all` keys on a private deployment (the benchmarks).
   */
  CACHE_OUTCOME_HEADER: z.enum(['internal', 'all']).default('internal'),
  /**
   * `npm start` only (scripts/dev.ts): the printed demo key, which /docs offers for "try it" when it
   * is served on a loopback address. Never set in a deployed Worker.
   */
  DOCS_DEMO_KEY: z.string().optional(),
  /** Lowest level written to the logs (shared/observability/log.ts). */
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /** The Worker's name in log lines (wrangler.toml vars per environment). */
  WORKER_NAME: z.string().default('discovery-api'),
  /** Fixed "now" (ISO 8601) for tests and demos; unset in production. */
  NOW: z.string().datetime({ offset: true }).optional(),
});

export type Config = z.infer<typeof bindingsSchema>;

/** The part of a Cloudflare Queue producer we use (shared code stays runtime-neutral). */
export interface JobQueue {
  send(body: unknown): Promise<unknown>;
  sendBatch(messages: Iterable<{ body: unknown }>): Promise<unknown>;
}

type NumberBinding = 'AGGREGATE_INLINE_COST' | 'STATEMENT_TIMEOUT_MS' | 'JOB_STATEMENT_TIMEOUT_MS' | 'PUBLIC_RATE_LIMIT_PER_MINUTE' | 'ISOLATE_CACHE_SECONDS' | 'REFERENCE_CACHE_SECONDS';

export interface Bindings extends Partial<Record<Exclude<keyof Config, NumberBinding>, string>> {
  AGGREGATE_INLINE_COST?: string | number;
  STATEMENT_TIMEOUT_MS?: string | number;
  JOB_STATEMENT_TIMEOUT_MS?: string | number;
  ISOLATE_CACHE_SECONDS?: string | number;
  REFERENCE_CACHE_SECONDS?: string | number;
  PUBLIC_RATE_LIMIT_PER_MINUTE?: string | number;
  JOBS_QUEUE?: JobQueue;
}

export interface Variables {
  config: Config;
  db: Db;
  store: Store;
  clock: Clock;
  auth: AuthContext;
  limits: LimitState;
  /** X-Request-Id of this request (shared/observability). */
  requestId: string;
  /** How an aggregate answer came about (hit, miss, shared, bypass), for the log line; the header only for internal keys. */
  aggregateCache?: string;
}

export interface Env {
  Bindings: Bindings;
  Variables: Variables;
}

const parsed = new WeakMap<object, Config>();

/** Validates the bindings once per env object; a misconfigured Worker fails loudly, once. */
export function readConfig(bindings: Bindings): Config {
  let config = parsed.get(bindings);
  if (!config) {
    const result = bindingsSchema.safeParse(bindings);
    if (!result.success) {
      const fields = result.error.issues.map((i) => i.path.join('.')).join(', ');
      throw new Error(`Worker misconfigured: check bindings ${fields}`);
    }
    config = result.data;
    parsed.set(bindings, config);
  }
  return config;
}
