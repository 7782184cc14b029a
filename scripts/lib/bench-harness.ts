// What every benchmark stands on, set up one way: the machine's PostgreSQL and Redis, scratch
// databases of the benchmarks (named bench_*), the local gateway in front of both and its counters,
// the bindings a Worker gets to reach them through it, and one close() for all of it
// (scripts/lib/demo-stack.ts builds the demo database on the same pieces); for the benches that drive
// the product's own stack, `npm start` as a child (scripts/lib/npm-start.ts), alone or on a throwaway
// PostgreSQL and Redis.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { createStore, type Store } from '../../shared/db/redis';
import { startGateway, type Gateway } from '../gateway/index';
import { migrate } from './migrations';
import { freePort } from './npm-start';
import { startWorker, type RunningWorker } from './worker';

export { freePort, type NpmStart, startNpmStart } from './npm-start';
export { startThrowaway, type ThrowawayStack } from './throwaway';

const ROOT = join(import.meta.dirname, '..', '..');

/** The PostgreSQL server the benchmarks use (postgres://user@host:port, no database). */
export const PG_BASE = process.env.PG_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
/** The Redis server behind the gateway's Upstash REST front. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const dbUrl = (name: string) => `${PG_BASE}/${name}`;

/** `name:<this run's start>`: a run's Redis keys, apart from earlier runs' (REDIS_PREFIX). */
export const runPrefix = (name: string) => `${name}:${Date.now().toString(36)}`;

// ---- databases ----

/** `work` on one connection to `url`, closed after. */
export async function onServer<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Drops `name` on `server` and creates it again, empty or as a copy of `template` (nothing may be connected to it). */
export async function recreateDatabase(server: string, name: string, template?: string): Promise<void> {
  await onServer(`${server}/postgres`, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    for (let attempt = 0; ; attempt++) {
      try {
        await c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
        return;
      } catch (err) {
        // Two runs cloning at the same instant: the template is briefly "accessed by other users".
        if (!template || attempt > 40 || !String((err as Error).message).includes('accessed by other users')) throw err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  });
}

function checkName(name: string): void {
  if (!/^bench_[a-z0-9_]+$/.test(name)) throw new Error(`benchmark databases are named bench_*: ${name}`);
}

export async function databaseExists(name: string): Promise<boolean> {
  checkName(name);
  return onServer(dbUrl('postgres'), async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1);
}

export async function connectTo(name: string): Promise<pg.Client> {
  checkName(name);
  const client = new pg.Client(dbUrl(name));
  await client.connect();
  return client;
}

/** Drops and recreates `name`, applies the migrations and returns a connected client. */
export async function freshDatabase(name: string): Promise<pg.Client> {
  checkName(name);
  await recreateDatabase(PG_BASE, name);
  const client = await connectTo(name);
  await migrate(client);
  return client;
}

/** Drops and recreates `name` as a copy of the database `from` (nothing may be connected to it) and returns a connected client. */
export async function copyDatabase(from: string, name: string): Promise<pg.Client> {
  checkName(from);
  checkName(name);
  await recreateDatabase(PG_BASE, name, from);
  return connectTo(name);
}

// ---- the gateway ----

export interface GatewayOptions {
  /** postgres://user@host:port (no database); default PG_BASE. */
  server?: string;
  /** Default REDIS_URL. */
  redisUrl?: string;
  /**
   * Run the gateway in its own process (`npm run gateway`), as PostgreSQL's and Redis' HTTP fronts
   * are in production, so a load generator in this process does not compete with it for the event loop.
   */
  gatewayProcess?: boolean;
}

/** The local gateway in front of every database of the server, and Redis. */
export function startBenchGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const databaseUrl = `${options.server ?? PG_BASE}/postgres`;
  const redisUrl = options.redisUrl ?? REDIS_URL;
  return options.gatewayProcess ? gatewayChild(databaseUrl, redisUrl) : startGateway({ databaseUrl, redisUrl });
}

/** `scripts/gateway/cli.ts` as a child process, with the same interface as an in-process gateway. */
async function gatewayChild(databaseUrl: string, redisUrl: string): Promise<Gateway> {
  const port = await freePort();
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

// ---- the gateway's counters ----

/** What the gateway counted since its last reset (GET /stats; `spans` with ?spans=1). */
export interface GatewayCounts {
  sql: number;
  redis: number;
  /** Sequential round trips up to the last mark (scripts/gateway/trips.ts). */
  sequential: number;
  /** Per caller named by X-Gateway-Caller. */
  callers: Record<string, { sql: number; redis: number }>;
  spans?: { start: number; end: number; label: string }[];
}

/** The gateway's request counters and spans: reset, mark the end of a request, read (scripts/gateway/trips.ts). */
export function gatewayStats(gateway: { neonHttpUrl: string }) {
  const call = (path: string, method = 'GET') => fetch(new URL(path, gateway.neonHttpUrl), { method });
  return {
    async reset(): Promise<void> {
      await call('/stats/reset', 'POST');
    },
    async mark(): Promise<void> {
      await call('/stats/mark', 'POST');
    },
    async read(spans = false): Promise<GatewayCounts> {
      return (await (await call(spans ? '/stats?spans=1' : '/stats')).json()) as GatewayCounts;
    },
  };
}

// ---- the services a Worker binds ----

export interface BenchServicesOptions extends GatewayOptions {
  /** The database the Worker binds (on `server`). */
  database: string;
  /** REDIS_PREFIX (default `database`); a bench passes runPrefix('bench_<name>'). */
  redisPrefix?: string;
  /** NOW: the business clock of the Worker (default the wall clock). */
  now?: string;
  /** Further bindings (limits lifted for one client, computing in the request, ...). */
  bindings?: Record<string, string>;
}

/** What a Worker binds to reach the services (with APP_URL, NOW when given, and the bench's own). */
export interface WorkerBindings {
  DATABASE_URL: string;
  NEON_HTTP_ENDPOINT: string;
  NEON_WS_PROXY: string;
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
  REDIS_PREFIX: string;
  [name: string]: string;
}

export interface BenchServices {
  gateway: Gateway;
  databaseUrl: string;
  bindings: WorkerBindings;
  /** Deletes this run's keys of one cache (`agg`, `feed`: the keys under `<REDIS_PREFIX>:<namespace>:`). */
  clearCache(namespace: string): Promise<void>;
  /** The gateway's SQL and Redis request counters (GET /stats). */
  counters(): Promise<{ sql: number; redis: number }>;
  /** Starts a Worker on the bindings and `overrides` (the all-in-one Worker unless `start` bundles another); close() disposes it. */
  worker(overrides?: Record<string, string>, start?: (bindings: Record<string, string>) => Promise<RunningWorker>): Promise<RunningWorker>;
  /** Disposes the Workers (last started first), then closes the gateway. The database stays. */
  close(): Promise<void>;
}

export async function startBenchServices(options: BenchServicesOptions): Promise<BenchServices> {
  const gateway = await startBenchGateway(options);
  const databaseUrl = `${options.server ?? PG_BASE}/${options.database}`;
  const bindings: WorkerBindings = {
    DATABASE_URL: databaseUrl,
    NEON_HTTP_ENDPOINT: gateway.neonHttpUrl,
    NEON_WS_PROXY: gateway.neonWsProxy,
    UPSTASH_REDIS_REST_URL: gateway.upstashUrl,
    UPSTASH_REDIS_REST_TOKEN: gateway.upstashToken,
    REDIS_PREFIX: options.redisPrefix ?? options.database,
    APP_URL: 'https://app.example.com',
    ...(options.now ? { NOW: options.now } : {}),
    ...options.bindings,
  };
  let store: Store | undefined;
  const storeOf = () => (store ??= createStore(bindings));
  const workers: RunningWorker[] = [];
  return {
    gateway,
    databaseUrl,
    bindings,
    async clearCache(namespace) {
      const { redis } = storeOf();
      const keys = await redis.keys(`${bindings.REDIS_PREFIX}:${namespace}:*`);
      if (keys.length) await redis.del(...keys);
    },
    async counters() {
      const { sql, redis } = await gatewayStats(gateway).read();
      return { sql, redis };
    },
    async worker(overrides = {}, start = startWorker) {
      const worker = await start({ ...bindings, ...overrides });
      workers.push(worker);
      return worker;
    },
    async close() {
      for (const worker of workers.reverse()) await worker.dispose();
      await gateway.close();
    },
  };
}
