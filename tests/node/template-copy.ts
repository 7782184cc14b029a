// A scratch database copied from the run's migrated template (tests/setup/global.ts), for node tests
// that load data of their own or take a schema back to an earlier migration.
import pg from 'pg';
import { inject } from 'vitest';

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

/** A fresh copy of the template, `t_<name>_<run id>`, connected; `drop()` closes and removes it. */
export async function templateCopy(name: string): Promise<{ client: pg.Client; drop(): Promise<void> }> {
  const db = `t_${name}_${inject('runId')}`;
  await onServer(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  await onServer(`CREATE DATABASE ${db} TEMPLATE ${inject('templateDatabase')}`);
  const client = new pg.Client({ connectionString: `${SERVER}/${db}` });
  await client.connect();
  return {
    client,
    drop: async () => {
      await client.end();
      await onServer(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    },
  };
}
