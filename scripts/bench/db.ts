// Scratch databases of the benchmarks on the machine's PostgreSQL (names start with `bench_`).
import pg from 'pg';
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
