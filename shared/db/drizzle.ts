// A drizzle database over Neon's HTTP driver: the admin functions (shared/admin), the tests' world and
// the benchmarks' setup use its query builder. No request does (shared/db/client.ts): a Worker's
// bundle keeps drizzle only where the jobs and admin paths import this module.
import { neon } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-http';
import { createDb, type DbConfig, type DrizzleDb } from './client';

export function createDrizzleDb(config: DbConfig): DrizzleDb {
  // createDb sets the driver's endpoint for the local gateway (global in the driver).
  createDb(config);
  return drizzle({ client: neon(config.DATABASE_URL) });
}
