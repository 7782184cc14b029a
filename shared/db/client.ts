// Request-scoped Postgres access over Neon's HTTP driver (one round trip per query or batch).
import { neon, neonConfig, Pool, type NeonQueryFunction } from '@neondatabase/serverless';
import type { NeonHttpDatabase } from 'drizzle-orm/neon-http';

/**
 * What the request path reads through: the driver's HTTP query function (`db.$client.query`,
 * shared/db/raw.ts), every query in plain SQL. The same shape as a drizzle database's `$client`.
 */
export interface Db {
  readonly $client: NeonQueryFunction<false, false>;
}

/** A drizzle database over the same driver: the admin CLI, seeds and scripts (Node), never a request. */
export type DrizzleDb = NeonHttpDatabase & { $client: NeonQueryFunction<false, false> };

export interface DbConfig {
  DATABASE_URL: string;
  /** Set only against the local gateway; production Neon derives the endpoint from the host. */
  NEON_HTTP_ENDPOINT?: string;
  NEON_WS_PROXY?: string;
}

/**
 * A WebSocket pool for work that needs one connection (transactions). Create and end it inside the
 * same request or job: Workers cannot share I/O objects across requests.
 */
export function createPool(config: DbConfig): Pool {
  if (config.NEON_WS_PROXY) {
    const proxy = config.NEON_WS_PROXY;
    neonConfig.wsProxy = () => proxy;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineConnect = false;
  }
  return new Pool({ connectionString: config.DATABASE_URL, max: 1 });
}

/**
 * The driver's query function alone: no request uses drizzle's query builder, so a request
 * evaluates none of drizzle (docs/PERFORMANCE.md, "The first request").
 */
export function createDb(config: DbConfig): Db {
  return { $client: httpClient(config) };
}

/** The driver's HTTP query function; its endpoint is the local gateway's where one is configured. */
export function httpClient(config: DbConfig): NeonQueryFunction<false, false> {
  if (config.NEON_HTTP_ENDPOINT) {
    // Global in the driver, so set per call: the value is the same for the whole isolate.
    neonConfig.fetchEndpoint = config.NEON_HTTP_ENDPOINT;
  }
  return neon(config.DATABASE_URL);
}
