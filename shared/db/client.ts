// Request-scoped Postgres access over Neon's HTTP driver (one round trip per query or batch).
import { neon, neonConfig } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-http';
import * as schema from './schema';

export type Db = ReturnType<typeof createDb>;

export interface DbConfig {
  DATABASE_URL: string;
  /** Set only against the local gateway; production Neon derives the endpoint from the host. */
  NEON_HTTP_ENDPOINT?: string;
}

export function createDb(config: DbConfig) {
  if (config.NEON_HTTP_ENDPOINT) {
    // Global in the driver, so set per call: the value is the same for the whole isolate.
    neonConfig.fetchEndpoint = config.NEON_HTTP_ENDPOINT;
  }
  return drizzle({ client: neon(config.DATABASE_URL), schema });
}
