// The local gateway: one node:http server that speaks Neon's HTTP SQL and WebSocket protocols
// and Upstash's Redis REST protocol in front of real servers (or embedded stand-ins), so Worker
// code is the same in production, in local development and in tests.
//
//   POST /sql                       Neon HTTP SQL      (neonConfig.fetchEndpoint)
//   GET  /v1  (WebSocket upgrade)   Neon wsproxy relay (neonConfig.wsProxy)
//   POST /redis[/pipeline|/multi-exec]  Upstash REST   (new Redis({ url, token }))
//   GET  /health                    backends and whether they answer
//   GET  /stats, POST /stats/reset  requests served per protocol (and per caller that names itself in
//   POST /stats/mark                X-Gateway-Caller) and sequential round trips (scripts/gateway/trips.ts)
//                                   since the last reset, up to the mark
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { HttpError, parsedBodies, sendJson } from './http-util';
import { MemoryRedis } from './memory-redis';
import { createNeonHttpHandler } from './neon-http';
import { createWsRelay } from './neon-ws';
import { PgPools, targetFromUrl, type PgTarget } from './pg-pools';
import { startPgliteServer, type PgliteServer } from './pglite-backend';
import { RealRedis } from './redis-real';
import type { RedisBackend } from './redis-types';
import { spanLabel, TripLog } from './trips';
import { createUpstashHandler } from './upstash';
import { STATEMENT_TIMEOUT_MS } from '../../shared/db/timeout';

export interface GatewayOptions {
  /** postgres://... of a real PostgreSQL; if absent, an embedded PGlite persisted at pgliteDir. */
  databaseUrl?: string;
  /** Default '.data/pglite'; 'memory://' keeps PGlite in memory. */
  pgliteDir?: string;
  /** redis://127.0.0.1:6379; if absent, an in-process Redis engine. */
  redisUrl?: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** One port for everything; 0 = random (default). */
  port?: number;
  /** Bearer token Upstash clients must send; default 'local-token'. */
  redisToken?: string;
  log?: (line: string) => void;
  /**
   * Milliseconds added to every SQL and Redis request (the Worker -> data-region round trip of
   * production, e.g. 50); default 0. Also what makes the round-trip count deterministic.
   */
  rttMs?: number;
  /**
   * PGlite only: a connection that holds the database this long without sending a statement is rolled
   * back and closed (default: the ingest statement timeout, shared/db/timeout.ts).
   */
  pgliteQuietLimitMs?: number;
}

export interface Gateway {
  port: number;
  /** Value for neonConfig.fetchEndpoint, e.g. http://127.0.0.1:PORT/sql */
  neonHttpUrl: string;
  /** Value for neonConfig.wsProxy's return, e.g. 127.0.0.1:PORT/v1 */
  neonWsProxy: string;
  /** Value for new Redis({ url }), e.g. http://127.0.0.1:PORT/redis */
  upstashUrl: string;
  upstashToken: string;
  backend: { postgres: 'postgres' | 'pglite'; redis: 'redis' | 'memory' };
  /** Changes the delay added to every SQL and Redis request (the distance bench runs with and without). */
  setRtt(ms: number): void;
  close(): Promise<void>;
}

/** How long /health waits for each backend: it answers even while PGlite is held by a long transaction. */
const HEALTH_WAIT_MS = 2_000;

async function health(pools: PgPools, redis: RedisBackend, holder: () => string | null) {
  const check = async (f: () => Promise<unknown>) => {
    let timer: NodeJS.Timeout | undefined;
    const busy = new Promise<string>((resolve) => {
      timer = setTimeout(() => {
        const who = holder();
        resolve(`no answer within ${HEALTH_WAIT_MS} ms${who ? ` (the embedded database is held by ${who})` : ''}`);
      }, HEALTH_WAIT_MS);
    });
    const answer = f().then(
      () => 'ok',
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
    const result = await Promise.race([answer, busy]);
    clearTimeout(timer);
    return result;
  };
  const [pg, rd] = await Promise.all([
    check(() => pools.get(undefined).query('SELECT 1')),
    check(async () => {
      const r = await redis.exec(['PING']);
      if (r instanceof Error) throw r;
    }),
  ]);
  return { pg, rd };
}

export async function startGateway(opts: GatewayOptions = {}): Promise<Gateway> {
  const log = opts.log ?? (() => undefined);
  const host = opts.host ?? '127.0.0.1';
  const token = opts.redisToken ?? 'local-token';

  // How long a PGlite holder may stay quiet, and a /sql request that sets no statement_timeout wait for it.
  const quietLimitMs = opts.pgliteQuietLimitMs ?? (Number(process.env.INGEST_STATEMENT_TIMEOUT_MS) || STATEMENT_TIMEOUT_MS.ingest);
  let pglite: PgliteServer | undefined;
  let target: PgTarget;
  if (opts.databaseUrl) {
    target = targetFromUrl(opts.databaseUrl);
  } else {
    pglite = await startPgliteServer(opts.pgliteDir ?? '.data/pglite', { log, quietLimitMs });
    target = { host: pglite.host, port: pglite.port, user: 'postgres', database: 'postgres', singleDatabase: true };
  }
  const pools = new PgPools(target, log);
  const redis: RedisBackend = opts.redisUrl ? new RealRedis(opts.redisUrl) : new MemoryRedis();
  const backend = { postgres: pglite ? 'pglite' : 'postgres', redis: redis.kind } as const;

  const embedded = pglite;
  const sql = createNeonHttpHandler(pools, embedded && { holder: () => embedded.holder(), defaultWaitMs: quietLimitMs });
  const upstash = createUpstashHandler(redis, token);
  const relay = createWsRelay(
    () => target,
    log,
    (port, client) => pglite?.label(port, client),
  );

  // Requests served per protocol, and their spans: benchmarks and tests read them to count round trips.
  // A client that names itself (a benchmark's own polling) is also counted apart, so it can be told
  // from the Workers' requests.
  const stats = { sql: 0, redis: 0 };
  const callers: Record<string, { sql: number; redis: number }> = {};
  const trips = new TripLog();
  let rttMs = opts.rttMs ?? 0;

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://gateway').pathname.replace(/\/+$/, '') || '/';
    if (path === '/stats' && req.method === 'GET') {
      const spans = new URL(req.url ?? '/', 'http://gateway').searchParams.has('spans');
      return sendJson(res, 200, { ...stats, callers, sequential: trips.sequential(), ...(spans && { spans: trips.beforeMark() }) });
    }
    if (path === '/stats/reset' && req.method === 'POST') {
      trips.clear();
      return sendJson(res, 200, { ok: true });
    }
    if (path === '/stats/mark' && req.method === 'POST') {
      trips.mark(performance.now());
      return sendJson(res, 200, { ok: true });
    }
    if (path === '/health' && req.method === 'GET') {
      const { pg, rd } = await health(pools, redis, () => pglite?.holder() ?? null);
      const ok = pg === 'ok' && rd === 'ok';
      return sendJson(res, ok ? 200 : 503, { ok, postgres: backend.postgres, redis: backend.redis, checks: { postgres: pg, redis: rd } });
    }
    const redisMatch = /^\/redis(?:\/(pipeline|multi-exec))?$/.exec(path);
    if (path !== '/sql' && !redisMatch) throw new HttpError(404, `no route for ${path}`);
    if (req.method !== 'POST') throw new HttpError(405, 'use POST');
    const start = performance.now();
    res.once('finish', () => trips.record({ start, end: performance.now(), label: spanLabel(path, parsedBodies.get(req)) }));
    if (rttMs > 0) await new Promise((resolve) => setTimeout(resolve, rttMs));
    const caller = req.headers['x-gateway-caller'];
    const own = typeof caller === 'string' ? (callers[caller] ??= { sql: 0, redis: 0 }) : undefined;
    if (path === '/sql') {
      stats.sql++;
      if (own) own.sql++;
      return sql(req, res);
    }
    stats.redis++;
    if (own) own.redis++;
    return upstash(req, res, redisMatch?.[1] ?? '');
  }

  const server = createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      const status = err instanceof HttpError ? err.status : 500;
      const message = err instanceof Error ? err.message : String(err);
      if (status === 500) log(`gateway ${req.method} ${req.url}: ${err instanceof Error ? err.stack : message}`);
      if (res.headersSent) return res.destroy();
      // Neon's driver reads `message`, Upstash's client reads `error`.
      sendJson(res, status, { message, error: message });
    });
  });
  server.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://gateway').pathname;
    if (path === '/v1' || path === '/v1/') relay.handleUpgrade(req, socket, head);
    else socket.destroy();
  });
  // Idle keep-alive sockets outlive the clients' own pools (undici ~4 s), so a reused socket is
  // not closed under a request in flight.
  server.keepAliveTimeout = 30_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, host, () => resolve());
    });
  } catch (err) {
    relay.close();
    await pools.closeAll();
    await redis.close();
    await pglite?.close();
    throw err;
  }
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('gateway: no TCP address');
  const port = addr.port;
  const publicHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const base = `${publicHost}:${port}`;
  log(`gateway on http://${base} (postgres: ${backend.postgres}, redis: ${backend.redis}${rttMs ? `, rtt ${rttMs} ms` : ''})`);

  return {
    port,
    neonHttpUrl: `http://${base}/sql`,
    neonWsProxy: `${base}/v1`,
    upstashUrl: `http://${base}/redis`,
    upstashToken: token,
    backend,
    setRtt(ms) {
      rttMs = ms;
    },
    async close() {
      relay.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pools.closeAll();
      await redis.close();
      await pglite?.close();
    },
  };
}
