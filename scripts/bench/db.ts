// Scratch databases of the benchmarks on the machine's PostgreSQL (names start with `bench_`).
import pg from 'pg';
import { slideWindowsWith, windowEnd } from '../../shared/feed-windows';
import { migrate } from '../lib/migrations';

export const PG_BASE = process.env.PG_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
export const dbUrl = (name: string) => `${PG_BASE}/${name}`;

function checkName(name: string): void {
  if (!/^bench_[a-z0-9_]+$/.test(name)) throw new Error(`benchmark databases are named bench_*: ${name}`);
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client(dbUrl('postgres'));
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export async function databaseExists(name: string): Promise<boolean> {
  checkName(name);
  return admin(async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1);
}

/** Drops and recreates `name`, applies the migrations and returns a connected client. */
export async function freshDatabase(name: string): Promise<pg.Client> {
  checkName(name);
  await admin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
  });
  const client = await connectTo(name);
  await migrate(client);
  return client;
}

/** Drops and recreates `name` as a copy of the database `from` (nothing may be connected to it) and returns a connected client. */
export async function copyDatabase(from: string, name: string): Promise<pg.Client> {
  checkName(from);
  checkName(name);
  await admin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name} TEMPLATE ${from}`);
  });
  return connectTo(name);
}

/** Creates `name` when missing (migrated); applies pending migrations either way. */
export async function ensureDatabase(name: string): Promise<pg.Client> {
  if (!(await databaseExists(name))) return freshDatabase(name);
  const client = await connectTo(name);
  await migrate(client);
  return client;
}

export async function connectTo(name: string): Promise<pg.Client> {
  checkName(name);
  const client = new pg.Client(dbUrl(name));
  await client.connect();
  return client;
}

/**
 * Brings the feed windows to the data's "now", as the jobs cron keeps them in production: a full build
 * on a database bulk-loaded without them (the whole bench set: longer than a request's statement
 * timeout), nothing when they are current. Returns the seconds it took.
 */
export async function feedWindowsCurrent(client: pg.Client, now: Date): Promise<number> {
  const started = performance.now();
  await client.query(`SET work_mem = '256MB'`);
  await slideWindowsWith(client, windowEnd(now));
  await client.query('RESET work_mem');
  await client.query('ANALYZE profile_windows');
  return (performance.now() - started) / 1000;
}
