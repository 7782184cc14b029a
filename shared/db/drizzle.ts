// A drizzle database over Neon's HTTP driver: the admin functions (shared/admin), the tests' world and
// the benchmarks' setup use its query builder. No request does (shared/db/client.ts), and no deployed
// Worker imports this module: drizzle is in none of their bundles (scripts/lib/bundles.ts).
import { drizzle } from 'drizzle-orm/neon-http';
import { httpClient, type DbConfig, type DrizzleDb } from './client';

export function createDrizzleDb(config: DbConfig): DrizzleDb {
  return drizzle({ client: httpClient(config) });
}
