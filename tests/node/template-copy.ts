// Scratch databases copied from the run's migrated template (tests/setup/global.ts), for node tests
// that load data of their own, run a CLI against them or take a schema back to an earlier migration.
import pg from 'pg';
import { expect, inject } from 'vitest';
import { ingest } from '../../shared/ingest/index';

const SERVER = inject('adminDatabaseUrl').replace(/\/[^/]*$/, '');

/** One statement on the server's `postgres` database (creating and dropping databases). */
async function onServer(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: `${SERVER}/postgres` });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** `t_<name>_<run id>` and its URL; `create()` copies the template into it (replacing a leftover), `drop()` removes it. */
export function scratchDatabase(name: string) {
  const db = `t_${name}_${inject('runId')}`;
  const drop = () => onServer(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  return {
    name: db,
    url: `${SERVER}/${db}`,
    create: async () => {
      await drop();
      await onServer(`CREATE DATABASE ${db} TEMPLATE ${inject('templateDatabase')}`);
    },
    drop,
  };
}

/** A fresh copy of the template, connected; `drop()` closes and removes it. */
export async function templateCopy(name: string): Promise<{ client: pg.Client; drop(): Promise<void> }> {
  const scratch = scratchDatabase(name);
  await scratch.create();
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  return {
    client,
    drop: async () => {
      await client.end();
      await scratch.drop();
    },
  };
}

/** Ingests `records` into `client`, expecting every line to land (the first errors shown if not). */
export async function ingestAll(client: pg.Client, records: readonly object[]): Promise<void> {
  const summary = await ingest(
    client,
    records.map((r) => JSON.stringify(r)),
  );
  expect(summary.skipped, JSON.stringify(summary.errors.slice(0, 3))).toBe(0);
}
