// The activity hulls open at the frontier on PGlite, the embedded default of `npm start`, through the
// local gateway as the Workers reach it: the same cases and checks as on PostgreSQL (tests/fixtures/frontier.ts).
import { Pool } from '@neondatabase/serverless';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createDb, type Db } from '../../shared/db/client';
import { startGateway, type Gateway } from '../../scripts/gateway/index';
import { migrate } from '../../scripts/lib/migrations';
import { expectFrontierReads, expectFrontierState, loadFrontierBatches, type AfterBatch } from '../fixtures/frontier';
import { configureNeon } from './support/gateway';

// Any Neon-style connection string: PGlite has one database, every name maps to it.
const DB_URL = 'postgresql://neondb_owner:npg_secret@ep-local-123.us-east-2.aws.neon.tech/neondb?sslmode=require';

let gw: Gateway;
let db: Db;
let after: AfterBatch[];

beforeAll(async () => {
  gw = await startGateway({ pgliteDir: 'memory://' });
  configureNeon(gw);
  const pool = new Pool({ connectionString: DB_URL, max: 1 });
  try {
    const client = await pool.connect();
    try {
      await migrate(client);
      after = await loadFrontierBatches(client);
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
  db = createDb({ DATABASE_URL: DB_URL, NEON_HTTP_ENDPOINT: gw.neonHttpUrl }, 0);
}, 180_000);

afterAll(async () => {
  await gw?.close();
});

describe('activity hulls open at the frontier, on PGlite', () => {
  it('after every batch the kept hulls equal a full rebuild; the frontier moves forward only, hulls are open only at it', async () => {
    await expectFrontierState(db, after);
  });

  it('reads equal plain SQL over raw observations for every window around the frontier', async () => {
    await expectFrontierReads(db);
  }, 180_000);
});
