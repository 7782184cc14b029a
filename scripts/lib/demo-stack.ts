// The stack the fuzz suite and the load test run against: the all-in-one Worker as wrangler
// bundles it, in workerd, behind a local gateway to the machine's real PostgreSQL and Redis, over a
// database holding the demo data set and the demo tenants.
//
// Loading the demo data takes ~25 s, so it is loaded once into a template database named after a
// hash of everything that shapes it (migrations, generator, ingest, demo loader) at a fixed "now";
// each run clones that template (CREATE DATABASE ... TEMPLATE: about a second). A code change that
// alters the data changes the hash, and the next run builds a new template and drops the old ones.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { neon, neonConfig } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-http';
import pg from 'pg';
import { loadDemoData } from '../demo/load';
import { createDemoTenants, type DemoKey } from '../demo/tenants';
import { startGateway, type Gateway } from '../gateway/index';
import { migrate } from './migrations';
import { startWorker, type RunningWorker } from './worker';

const ROOT = join(import.meta.dirname, '..', '..');
/** Business "now" of the fuzz data: fixed, so a seed always means the same requests and data. */
export const FUZZ_NOW = '2026-11-10T12:00:00.000Z';
const SOURCES = ['drizzle', 'scripts/generate', 'shared/ingest', 'scripts/demo'];

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** Hash of the sources that shape the demo database. */
async function dataHash(): Promise<string> {
  const hash = createHash('sha256').update(FUZZ_NOW);
  for (const dir of SOURCES) {
    for (const file of await filesUnder(dir)) hash.update(file.slice(ROOT.length)).update(await readFile(file));
  }
  return hash.digest('hex').slice(0, 12);
}

export interface StackOptions {
  /** postgres://user@host:port (no database). */
  server: string;
  redisUrl: string;
  /** Name of this run's database (dropped on dispose). */
  database: string;
  log?: (line: string) => void;
  /**
   * Run the gateway in its own process (`npm run gateway`), as PostgreSQL's and Redis' HTTP fronts
   * are in production, so a load generator in this process does not compete with it for the event loop.
   */
  gatewayProcess?: boolean;
  /** Extra Worker bindings (e.g. a lifted per-IP limit for a load test from one client). */
  bindings?: Record<string, string>;
}

export interface Stack {
  url: URL;
  worker: RunningWorker;
  gateway: Gateway;
  keys: DemoKey[];
  databaseUrl: string;
  dispose(): Promise<void>;
}

async function onServer<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The template database with the demo data, built when missing. */
async function demoTemplate(server: string, log: (line: string) => void): Promise<string> {
  const name = `fuzz_demo_${await dataHash()}`;
  const exists = await onServer(
    `${server}/postgres`,
    async (c) => (await c.query(`SELECT 1 FROM pg_database WHERE datname = $1 AND datallowconn`, [name])).rowCount === 1,
  );
  if (exists) return name;
  log(`building the demo template ${name} (once per change of the data sources, ~30 s)`);
  const building = `${name}_building_${process.pid}`;
  await onServer(`${server}/postgres`, (c) => c.query(`CREATE DATABASE ${building}`));
  await onServer(`${server}/${building}`, async (c) => {
    await migrate(c);
    await loadDemoData(c, new Date(FUZZ_NOW), log);
  });
  await onServer(`${server}/postgres`, async (c) => {
    // Another run may have finished the same template meanwhile: keep theirs.
    const { rowCount } = await c.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name]);
    if (rowCount) await c.query(`DROP DATABASE ${building} WITH (FORCE)`);
    else await c.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    const { rows } = await c.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'fuzz\\_demo\\_%' AND datname <> $1 AND datname NOT LIKE '%\\_building\\_%'`,
      [name],
    );
    // Without FORCE: a template another checkout is cloning right now stays (the drop fails).
    for (const { datname } of rows) await c.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => undefined);
  });
  return name;
}

/** `scripts/gateway/cli.ts` as a child process, with the same interface as an in-process gateway. */
async function gatewayChild(databaseUrl: string, redisUrl: string): Promise<Gateway> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'scripts/gateway/cli.ts')], {
    env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, GATEWAY_PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the gateway process exited with ${child.exitCode}`);
    if (
      await fetch(`http://${base}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 150) throw new Error('the gateway process did not become healthy');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    neonHttpUrl: `http://${base}/sql`,
    neonWsProxy: `${base}/v1`,
    upstashUrl: `http://${base}/redis`,
    upstashToken: 'local-token',
    backend: { postgres: 'postgres', redis: 'redis' },
    setRtt() {
      throw new Error('the gateway process takes its delay at start (GATEWAY_RTT_MS)');
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The demo database (a clone of the template), the gateway in front of it and Redis, and the demo tenants. */
export interface DemoServices {
  gateway: Gateway;
  keys: DemoKey[];
  databaseUrl: string;
  /** What a Worker binds to reach them (DATABASE_URL, NEON_HTTP_ENDPOINT, UPSTASH_*, REDIS_PREFIX, NOW). */
  bindings: Record<string, string>;
  dispose(): Promise<void>;
}

export async function startDemoServices(options: StackOptions): Promise<DemoServices> {
  const log = options.log ?? (() => undefined);
  const { server, database } = options;
  const template = await demoTemplate(server, log);
  await onServer(`${server}/postgres`, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    for (let attempt = 0; ; attempt++) {
      try {
        await c.query(`CREATE DATABASE ${database} TEMPLATE ${template}`);
        return;
      } catch (err) {
        // Two runs cloning at the same instant: the template is briefly "accessed by other users".
        if (attempt > 40 || !String((err as Error).message).includes('accessed by other users')) throw err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  });
  const databaseUrl = `${server}/${database}`;
  const gateway = options.gatewayProcess
    ? await gatewayChild(`${server}/postgres`, options.redisUrl)
    : await startGateway({ databaseUrl: `${server}/postgres`, redisUrl: options.redisUrl });
  neonConfig.fetchEndpoint = gateway.neonHttpUrl;
  const db = drizzle({ client: neon(databaseUrl) });
  const keys = await createDemoTenants(db, new Date(FUZZ_NOW));
  // Many thousand requests a minute from one key: lift the per-minute limit (429 stays reachable
  // through the fuzz's own requests to the other keys' projects).
  await onServer(databaseUrl, (c) => c.query(`UPDATE projects SET rate_limit_per_minute = 1000000 WHERE name = 'Demo newsroom'`));
  return {
    gateway,
    keys,
    databaseUrl,
    bindings: {
      DATABASE_URL: databaseUrl,
      NEON_HTTP_ENDPOINT: gateway.neonHttpUrl,
      NEON_WS_PROXY: gateway.neonWsProxy,
      UPSTASH_REDIS_REST_URL: gateway.upstashUrl,
      UPSTASH_REDIS_REST_TOKEN: gateway.upstashToken,
      REDIS_PREFIX: database,
      APP_URL: 'https://app.example.com',
      NOW: FUZZ_NOW,
    },
    async dispose() {
      await gateway.close();
      await onServer(`${server}/postgres`, (c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).catch(() => undefined);
    },
  };
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const services = await startDemoServices(options);
  let worker: RunningWorker;
  try {
    worker = await startWorker({ ...services.bindings, ...options.bindings });
  } catch (err) {
    await services.dispose();
    throw err;
  }
  const { gateway, keys, databaseUrl } = services;
  return {
    url: worker.url,
    worker,
    gateway,
    keys,
    databaseUrl,
    async dispose() {
      await worker.dispose();
      await services.dispose();
    },
  };
}
