// Once per test project: the local gateway in front of the machine's real PostgreSQL and Redis,
// and a migrated template database that each test file clones (CREATE DATABASE ... TEMPLATE).
import { createServer } from 'node:net';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startGateway } from '../../scripts/gateway/index';
import { migrate } from '../../scripts/lib/migrations';

const SERVER = process.env.TEST_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    adminDatabaseUrl: string;
    templateDatabase: string;
    /** Suffix of every database this run creates; teardown drops them. */
    runId: string;
    neonHttpUrl: string;
    neonWsProxy: string;
    upstashUrl: string;
    upstashToken: string;
    /** A gateway whose Redis is stopped (connection refused). */
    deadRedisUpstashUrl: string;
    /** An endpoint that accepts connections and never answers (a hung Redis). */
    hungRedisUpstashUrl: string;
    /** A gateway to the real Redis that only one test file uses, to count round trips. */
    quietUpstashUrl: string;
    /**
     * A gateway 40 ms away (every request delayed), that only the round-trip file uses: its /stats counts
     * sequential trips. Requests of one wave must start within that delay of each other to overlap: at
     * 20 ms a loaded machine once started a wave's second request after the first had come back.
     */
    distantUpstashUrl: string;
  }
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: `${SERVER}/postgres` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export default async function setup(project: TestProject) {
  // One id per run: concurrent runs on one machine never share a template or a test database.
  const runId = Math.random().toString(36).slice(2, 8);
  const template = `discovery_tmpl_${project.name.replace(/\W/g, '_')}_${runId}`;
  await admin(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${template}`);
  });
  const client = new pg.Client({ connectionString: `${SERVER}/${template}` });
  await client.connect();
  await migrate(client);
  await client.end();

  const gateway = await startGateway({ databaseUrl: `${SERVER}/postgres`, redisUrl: REDIS_URL });
  const deadRedis = await startGateway({ databaseUrl: `${SERVER}/postgres`, redisUrl: 'redis://127.0.0.1:1' });
  const quiet = await startGateway({ databaseUrl: `${SERVER}/postgres`, redisUrl: REDIS_URL });
  const distant = await startGateway({ databaseUrl: `${SERVER}/postgres`, redisUrl: REDIS_URL, rttMs: 40 });
  const hung = createServer(() => {}).listen(0, '127.0.0.1');
  await new Promise((resolve) => hung.once('listening', resolve));
  project.provide('databaseUrl', `${SERVER}/${template}`);
  project.provide('adminDatabaseUrl', `${SERVER}/postgres`);
  project.provide('templateDatabase', template);
  project.provide('runId', runId);
  project.provide('neonHttpUrl', gateway.neonHttpUrl);
  project.provide('neonWsProxy', gateway.neonWsProxy);
  project.provide('upstashUrl', gateway.upstashUrl);
  project.provide('upstashToken', gateway.upstashToken);
  project.provide('deadRedisUpstashUrl', deadRedis.upstashUrl);
  project.provide('hungRedisUpstashUrl', `http://127.0.0.1:${(hung.address() as { port: number }).port}/redis`);
  project.provide('quietUpstashUrl', quiet.upstashUrl);
  project.provide('distantUpstashUrl', distant.upstashUrl);
  return async () => {
    hung.close();
    await quiet.close();
    await distant.close();
    await deadRedis.close();
    await gateway.close();
    await admin(async (client) => {
      const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE '%\\_' || $1`, [runId]);
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    });
  };
}
