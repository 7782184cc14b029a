// The one Env type of every Worker: bindings validated once at the edge, request-scoped services.
import type { Db } from './db/client';
import type { Store } from './db/redis';
import type { Clock } from './time/clock';
import type { AuthContext } from './auth/types';
import { namespaces } from './cache/namespaces';
import type { LimitState } from './limits/check';
import type { IpDecision } from './limits/ip';
import type { DropBucket } from './ingest/drop/apply';

/**
 * The validated bindings. Parsed by hand, not by a zod schema: every request reads the config, and a
 * request without a key needs nothing else of zod (docs/PERFORMANCE.md, "The first request").
 * tests/node/env.test.ts checks readConfig against the zod schema this replaced (the same values,
 * defaults, keys and errors over generated bindings).
 */
export interface Config {
  DATABASE_URL: string;
  /** Local gateway only: Neon HTTP SQL endpoint (production derives it from the host). */
  NEON_HTTP_ENDPOINT?: string;
  /** Local gateway only: `host:port/v1` of the WebSocket relay (transactions, scans). */
  NEON_WS_PROXY?: string;
  /** A URL (trimmed, tabs and newlines dropped, as zod's `url()` did). */
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
  /** Namespace for every Redis key; lets several test databases share one Redis. Default ''. */
  REDIS_PREFIX: string;
  /** A URL; default https://app.example.com. */
  APP_URL: string;
  /**
   * statement_timeout (ms) of a request's queries, set in the same HTTP transaction as each query
   * (shared/db/timeout.ts); a query past it answers 503 + Retry-After. Default 5,000 (> 0).
   */
  STATEMENT_TIMEOUT_MS?: number;
  /** statement_timeout (ms) of the jobs Worker's queries (queue consumer and cron). Default 60,000 (> 0). */
  JOB_STATEMENT_TIMEOUT_MS?: number;
  /** Estimated cost above which metrics/roll-ups are queued instead of computed inline (> 0). */
  AGGREGATE_INLINE_COST?: number;
  /**
   * Seconds an isolate keeps a cached aggregate in memory in front of Redis (capped by the kind's
   * Redis TTL); 0 turns the memory layer off. Default 10.
   */
  ISOLATE_CACHE_SECONDS: number;
  /** Seconds reference reads (geo) are kept in isolate memory and the Workers Cache API; 0 = uncached. Default 60. */
  REFERENCE_CACHE_SECONDS: number;
  /** Public routes (no key): requests per minute per client IP; a bulk check counts one per domain. Default 300. */
  PUBLIC_RATE_LIMIT_PER_MINUTE: number;
  /**
   * HMAC key of feed cursors (shared/http/cursor.ts), at least 16 characters ('' = none). Only a Worker secret
   * (`wrangler secret put CURSOR_SECRET --env feed`, and `--env mcp`); never in wrangler.toml. `npm start`
   * and the tests bind the dev-only value, which is refused outside ENVIRONMENT=development (paging then
   * falls back to offsets).
   */
  CURSOR_SECRET?: string;
  /** `development` where `npm start` and the tests run (scripts/dev.ts, vitest.config.ts); unset in deployed Workers. */
  ENVIRONMENT?: string;
  /**
   * Who is sent `X-Aggregate-Cache`: internal keys (default; to a project key it would tell whether
   * another tenant asked the same question), or `all` keys on a private deployment (the benchmarks).
   */
  CACHE_OUTCOME_HEADER: 'internal' | 'all';
  /**
   * `npm start` only (scripts/dev.ts): the printed demo key, which /docs offers for "try it" when it
   * is served on a loopback address. Never set in a deployed Worker.
   */
  DOCS_DEMO_KEY?: string;
  /** Lowest level written to the logs (shared/observability/log.ts). Default info. */
  LOG_LEVEL: 'debug' | 'info' | 'warn' | 'error';
  /** The Worker's name in log lines (wrangler.toml vars per environment). Default discovery-api. */
  WORKER_NAME: string;
  /** Fixed "now" (ISO 8601 with Z or an offset) for tests and demos; unset in production. */
  NOW?: string;
}

/** The part of a Cloudflare Queue producer we use (shared code stays runtime-neutral). */
export interface JobQueue {
  send(body: unknown): Promise<unknown>;
  sendBatch(messages: Iterable<{ body: unknown }>): Promise<unknown>;
}

type NumberBinding =
  | 'AGGREGATE_INLINE_COST'
  | 'STATEMENT_TIMEOUT_MS'
  | 'JOB_STATEMENT_TIMEOUT_MS'
  | 'PUBLIC_RATE_LIMIT_PER_MINUTE'
  | 'ISOLATE_CACHE_SECONDS'
  | 'REFERENCE_CACHE_SECONDS';

export interface Bindings extends Partial<Record<Exclude<keyof Config, NumberBinding>, string>> {
  AGGREGATE_INLINE_COST?: string | number;
  STATEMENT_TIMEOUT_MS?: string | number;
  JOB_STATEMENT_TIMEOUT_MS?: string | number;
  ISOLATE_CACHE_SECONDS?: string | number;
  REFERENCE_CACHE_SECONDS?: string | number;
  PUBLIC_RATE_LIMIT_PER_MINUTE?: string | number;
  JOBS_QUEUE?: JobQueue;
  /** The crawler's drop (R2 bucket `discovery-ingest`, docs/INGEST.md "The drop"): read by the jobs Worker's ingest consumer. */
  INGEST_BUCKET?: DropBucket;
  /** Producer of the `discovery-ingest` queue: a run that outlives its invocation's budget is continued by a new message. */
  INGEST_QUEUE?: JobQueue;
  /** Producer of `discovery-ingest-dlq`: where the notification of an unreadable file goes, with its reason. */
  INGEST_DLQ?: JobQueue;
  /** Wall budget (ms) of one ingest consumer invocation (default 600,000: Queues consumers get 15 minutes). */
  INGEST_BUDGET_MS?: string | number;
  /** A pending drop run that has not moved for this many ms is resumed by the cron (default 900,000; npm start: 0, at boot). */
  INGEST_STALLED_MS?: string | number;
  /** Lines per chunk of the drop (default 5000, the ingest's batch). */
  INGEST_BATCH_SIZE?: string | number;
}

export interface Variables {
  config: Config;
  db: Db;
  store: Store;
  clock: Clock;
  auth: AuthContext;
  limits: LimitState;
  /** The watermark a public route read beside its data (functions/public/limit.ts), for `Data-As-Of` (shared/http/freshness.ts). */
  dataAsOf?: string | null;
  /** X-Request-Id of this request (shared/observability). */
  requestId: string;
  /** How an aggregate answer came about (hit, miss, shared, bypass), for the log line; the header only for internal keys. */
  aggregateCache?: string;
  /** This answer is a dependency outage's 503 (shared/http/errors.ts onError): a stale copy may replace it (shared/stale). */
  outage?: true;
  /** This answer is a 304 of a tag the key was sent (shared/http/etag.ts): its monthly quota is given back (shared/limits). */
  freeRevalidation?: true;
  /** The per-client-IP decision of a public route's read (functions/public/limit.ts), for its RateLimit headers. */
  ipDecision?: IpDecision;
}

export interface Env {
  Bindings: Bindings;
  Variables: Variables;
}

/** A binding's value that fails its rule. */
const BAD = Symbol('bad');
type Rule = (value: unknown) => unknown;

const text =
  (min = 0): Rule =>
  (v) =>
    typeof v === 'string' && v.length >= min ? v : BAD;
/** zod 4's `url()`: trimmed, parseable by URL, tabs and newlines removed from the value kept. */
const url: Rule = (v) => (typeof v === 'string' && URL.canParse(v.trim()) ? v.trim().replace(/[\t\n\r]/g, '') : BAD);
/** zod 4's `coerce.number()`: Number(value), finite. */
const number =
  (ok: (n: number) => boolean): Rule =>
  (v) => {
    const n = Number(v);
    return Number.isFinite(n) && ok(n) ? n : BAD;
  };
const oneOf =
  (values: readonly string[]): Rule =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? v : BAD;
/** ISO 8601 date-time with seconds and Z or an offset (zod 4's `datetime({ offset: true })`). */
const DATETIME =
  /^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|([+-](?:[01]\d|2[0-3]):[0-5]\d)))$/;
const OPTIONAL = Symbol('optional');

/** Each binding, in order: its rule, and its default (OPTIONAL: may be absent; none: required). */
const RULES: [key: keyof Config, rule: Rule, fallback?: unknown][] = [
  ['DATABASE_URL', text(1)],
  ['NEON_HTTP_ENDPOINT', text(), OPTIONAL],
  ['NEON_WS_PROXY', text(), OPTIONAL],
  ['UPSTASH_REDIS_REST_URL', url],
  ['UPSTASH_REDIS_REST_TOKEN', text(1)],
  ['REDIS_PREFIX', text(), ''],
  ['APP_URL', url, 'https://app.example.com'],
  ['STATEMENT_TIMEOUT_MS', number((n) => Number.isSafeInteger(n) && n > 0), OPTIONAL],
  ['JOB_STATEMENT_TIMEOUT_MS', number((n) => Number.isSafeInteger(n) && n > 0), OPTIONAL],
  ['AGGREGATE_INLINE_COST', number((n) => n > 0), OPTIONAL],
  ['ISOLATE_CACHE_SECONDS', number((n) => Number.isSafeInteger(n) && n >= 0), 10],
  ['REFERENCE_CACHE_SECONDS', number((n) => Number.isSafeInteger(n) && n >= 0), 60],
  ['PUBLIC_RATE_LIMIT_PER_MINUTE', number((n) => Number.isSafeInteger(n) && n > 0), 300],
  // '' means none.
  ['CURSOR_SECRET', (v) => (v === '' ? undefined : text(16)(v)), OPTIONAL],
  ['ENVIRONMENT', text(), OPTIONAL],
  ['CACHE_OUTCOME_HEADER', oneOf(['internal', 'all']), 'internal'],
  ['DOCS_DEMO_KEY', text(), OPTIONAL],
  ['LOG_LEVEL', oneOf(['debug', 'info', 'warn', 'error']), 'info'],
  ['WORKER_NAME', text(), 'discovery-api'],
  ['NOW', (v) => (typeof v === 'string' && DATETIME.test(v) ? v : BAD), OPTIONAL],
];

declare module './cache/namespaces' {
  interface NamespaceValues {
    config: Config;
  }
}

const parsed = namespaces.config.held;

/** Validates the bindings once per env object; a misconfigured Worker fails loudly, once. */
export function readConfig(bindings: Bindings): Config {
  let config = parsed.get(bindings);
  if (!config) {
    const input = bindings as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    const failed: string[] = [];
    for (const [key, rule, fallback] of RULES) {
      const raw = input[key];
      let value: unknown;
      if (raw === undefined) {
        if (fallback === undefined) failed.push(key);
        value = fallback === OPTIONAL ? undefined : fallback;
      } else {
        value = rule(raw);
        if (value === BAD) failed.push(key);
      }
      // As zod's objects: a key given as undefined stays, an absent optional one is left out.
      if (value !== undefined || key in input) out[key] = value;
    }
    if (failed.length) throw new Error(`Worker misconfigured: check bindings ${failed.join(', ')}`);
    config = out as unknown as Config;
    parsed.set(bindings, config);
  }
  return config;
}
