// The stack the fuzz suite and the load test run against: the all-in-one Worker as wrangler
// bundles it, in workerd, behind a local gateway to the machine's real PostgreSQL and Redis, over a
// database holding the demo data set and the demo tenants.
//
// Loading the demo data takes long (docs/BENCHMARKS.md "Fuzz"), so it is loaded once into a template
// database named after a hash of everything that shapes it (migrations, generator, ingest, demo loader)
// at a fixed "now"; each run clones that template (CREATE DATABASE ... TEMPLATE, much quicker). A code
// change that alters the data changes the hash, and the next run builds a new template and drops the old ones.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { neon, neonConfig } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-http';
import { loadDemoData } from '../demo/load';
import { createDemoTenants, type DemoKey } from '../demo/tenants';
import type { Gateway } from '../gateway/index';
import { onServer, PG_BASE, recreateDatabase, startBenchServices, type GatewayOptions } from './bench-harness';
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

/** `server`, `redisUrl` (defaults: the benchmarks' PG_BASE and REDIS_URL) and `gatewayProcess`: scripts/lib/bench-harness.ts. */
export interface StackOptions extends GatewayOptions {
  /** Name of this run's database (dropped on dispose). */
  database: string;
  log?: (line: string) => void;
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
  await recreateDatabase(server, building);
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
  const { database } = options;
  const server = options.server ?? PG_BASE;
  await recreateDatabase(server, database, await demoTemplate(server, log));
  const { redisUrl, gatewayProcess } = options;
  const services = await startBenchServices({ server, redisUrl, gatewayProcess, database, now: FUZZ_NOW });
  const { gateway, databaseUrl } = services;
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
    bindings: services.bindings,
    async dispose() {
      await services.close();
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
