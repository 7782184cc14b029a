// Request-scoped Postgres access over Neon's HTTP driver (one round trip per query or batch).
import { neon, neonConfig, Pool } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-http';
import { STATEMENT_TIMEOUT_MS, withStatementTimeout } from './timeout';

export type Db = ReturnType<typeof createDb>;

export interface DbConfig {
  DATABASE_URL: string;
  /** Set only against the local gateway; production Neon derives the endpoint from the host. */
  NEON_HTTP_ENDPOINT?: string;
  NEON_WS_PROXY?: string;
  /** statement_timeout of a request's queries (ms); jobs pass their own (shared/db/timeout.ts). */
  STATEMENT_TIMEOUT_MS?: number | string;
}

/**
 * A WebSocket pool for work that needs one connection (transactions). Create and end it inside the
 * same request or job: Workers cannot share I/O objects across requests.
 */
export function createPool(config: DbConfig): Pool {
  // Callers set the session's statement_timeout after connecting (setSessionTimeout): a startup
  // parameter is refused by Neon's pooler.
  if (config.NEON_WS_PROXY) {
    const proxy = config.NEON_WS_PROXY;
    neonConfig.wsProxy = () => proxy;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineConnect = false;
  }
  return new Pool({ connectionString: config.DATABASE_URL, max: 1 });
}

/**
 * Without drizzle's `schema` option: nothing uses the relational API (`db.query.*`), and with it
 * every request rebuilt the relational config of every table, and the first request of an isolate
 * evaluated every area's table modules (docs/PERFORMANCE.md, "The first request").
 */
export function createDb(
  config: DbConfig,
  timeoutMs: number = Number(config.STATEMENT_TIMEOUT_MS) || STATEMENT_TIMEOUT_MS.request,
  /** Statements without JIT compilation (a request's; jobs pass false: withStatementTimeout). */
  jitOff = true,
) {
  if (config.NEON_HTTP_ENDPOINT) {
    // Global in the driver, so set per call: the value is the same for the whole isolate.
    neonConfig.fetchEndpoint = config.NEON_HTTP_ENDPOINT;
  }
  // Every query carries its statement_timeout in the same HTTP transaction (no extra round trip). 0 sends
  // none: only for tooling that runs slow reference queries on purpose (the roll-up bench's raw side, test oracles).
  const sql = neon(config.DATABASE_URL);
  return drizzle({ client: timeoutMs > 0 ? withStatementTimeout(sql, timeoutMs, jitOff) : sql });
}
