// How Node scripts reach the database and Redis: through the same protocols as the Workers.
// - DATABASE_URL on Neon (host *.neon.tech): straight to Neon, no gateway.
// - a running `npm start` (.data/gateway.json answers): its gateway (the embedded PGlite is
//   single-process, so a second process must go through the first).
// - otherwise an in-process gateway in front of DATABASE_URL / REDIS_URL, or the embedded engines.
import { neon, neonConfig, Pool } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-http';
import type { Db } from '../../shared/db/client';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { createStore, type Store } from '../../shared/db/redis';
import { startGateway, type Gateway } from '../gateway/index';
import { guardPool } from './resilient';

// Node's require, not the bundler's: see scripts/gateway/neon-ws.ts.
const ws = createRequire(import.meta.url)('ws');

const DATA_DIR = process.env.DATA_DIR ?? '.data';
export const GATEWAY_FILE = `${DATA_DIR}/gateway.json`;
const EMBEDDED_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface GatewayInfo {
  neonHttpUrl: string;
  neonWsProxy: string;
  upstashUrl: string;
  upstashToken: string;
  databaseUrl: string;
}

export interface Connection {
  db: Db;
  pool: Pool;
  info: GatewayInfo | null;
  close(): Promise<void>;
}

/**
 * The gateway of a running `npm start`, if GATEWAY_FILE names one that answers. Any answer counts
 * (a backend may be busy or down: the command then reports that itself): never open a second embedded
 * database over the files of a running one (scripts/gateway/pglite-backend.ts refuses it too).
 */
async function runningGateway(): Promise<GatewayInfo | null> {
  let info: GatewayInfo;
  try {
    info = JSON.parse(await readFile(GATEWAY_FILE, 'utf8')) as GatewayInfo;
  } catch {
    return null;
  }
  try {
    // Generous: a long statement in the embedded database holds the gateway's event loop meanwhile.
    await fetch(new URL('/health', info.neonHttpUrl), { signal: AbortSignal.timeout(15_000) });
    return info;
  } catch (err) {
    // Nothing listens any more (a stopped npm start left its file): start our own.
    const cause = (err as Error).cause as NodeJS.ErrnoException | undefined;
    if (cause?.code === 'ECONNREFUSED' || /ECONNREFUSED/.test(String(cause))) return null;
    throw new Error(`the gateway in ${GATEWAY_FILE} (${info.neonHttpUrl}) does not answer: ${(err as Error).message}`);
  }
}

export function configureDriver(info: GatewayInfo | null): void {
  neonConfig.webSocketConstructor = ws;
  if (!info) return;
  neonConfig.fetchEndpoint = info.neonHttpUrl;
  neonConfig.wsProxy = () => info.neonWsProxy;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineConnect = false;
}

export function gatewayInfo(gateway: Gateway, databaseUrl: string): GatewayInfo {
  const { neonHttpUrl, neonWsProxy, upstashUrl, upstashToken } = gateway;
  return { neonHttpUrl, neonWsProxy, upstashUrl, upstashToken, databaseUrl };
}

export async function connect(): Promise<Connection> {
  const url = process.env.DATABASE_URL;
  let gateway: Gateway | undefined;
  let info: GatewayInfo | null = null;
  if (!url?.includes('.neon.tech')) {
    info = url ? null : await runningGateway();
    if (!info) {
      // npm start's embedded database (scripts/dev.ts), when no npm start serves it.
      gateway = await startGateway({ databaseUrl: url, redisUrl: process.env.REDIS_URL, pgliteDir: `${DATA_DIR}/pglite` });
      info = gatewayInfo(gateway, url ?? EMBEDDED_DATABASE_URL);
    }
  }
  configureDriver(info);
  const connectionString = info?.databaseUrl ?? url!;
  // Named after the script (`ingest`, `admin`, ...): pg_stat_activity and the PGlite watchdog's log lines show it.
  const application_name = basename(process.argv[1] ?? 'script').replace(/\.[cm]?[jt]s$/, '');
  const pool = guardPool(new Pool({ connectionString, max: 4, application_name }), 'database pool', (line) => console.error(line));
  return {
    db: drizzle({ client: neon(connectionString) }),
    pool,
    info,
    async close() {
      await pool.end();
      await gateway?.close();
    },
  };
}

/** The Workers' Redis, as the gateway (or UPSTASH_REDIS_REST_* for a deployment) reaches it; `what` names the command that needs it. */
export function storeOf(info: GatewayInfo | null, what: string): Store {
  const url = info?.upstashUrl ?? process.env.UPSTASH_REDIS_REST_URL;
  const token = info?.upstashToken ?? process.env.UPSTASH_REDIS_REST_TOKEN;
  if (!url || !token) throw new Error(`${what} needs Redis: set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN`);
  return createStore({ UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token, REDIS_PREFIX: process.env.REDIS_PREFIX ?? '' });
}
