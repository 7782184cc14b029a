// `npm start`: the whole API in workerd on embedded defaults. Starts the local gateway (PGlite and
// an in-process Redis unless DATABASE_URL / REDIS_URL say otherwise), migrates, loads the demo
// data on an empty database, issues demo keys, and runs `wrangler dev` against the gateway.
import { Pool } from '@neondatabase/serverless';
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { DEV_CURSOR_SECRET } from '../shared/http/dev-secrets';
import { startGateway } from './gateway/index';
import { configureDriver, gatewayInfo } from './lib/connect';
import { migrate } from './lib/migrations';
import { exitOnFatal, guardPool } from './lib/resilient';
import { loadDemoData } from './demo/load';
import { createDemoTenants } from './demo/tenants';
import { liveLines, topUp } from './demo/live';
import { API_FILE, putDrop } from './lib/local-drop';
import { scanMentionList } from '../functions/jobs/scan';
import { createStore } from '../shared/db/redis';
import { announcer, listTopic } from '../shared/streams/signal';
import { drizzle } from 'drizzle-orm/neon-http';
import { neon } from '@neondatabase/serverless';
import { setSessionTimeout, STATEMENT_TIMEOUT_MS } from '../shared/db/timeout';
import type { Queryable } from '../shared/db/queryable';

const PORT = Number(process.env.PORT ?? 8787);
/** Where the embedded database, the gateway address and the demo keys live (tests use a temp dir). */
const DATA_DIR = process.env.DATA_DIR ?? '.data';
const KEYS_FILE = `${DATA_DIR}/demo-keys.json`;
const log = (line: string) => console.log(`[start] ${line}`);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

await mkdir(DATA_DIR, { recursive: true });
const databaseUrl = process.env.DATABASE_URL;
const gateway = await startGateway({
  databaseUrl,
  redisUrl: process.env.REDIS_URL,
  pgliteDir: `${DATA_DIR}/pglite`,
  log,
  // GATEWAY_RTT_MS=50 npm start: every SQL and Redis request pays the distance to the data region.
  rttMs: Number(process.env.GATEWAY_RTT_MS ?? 0),
});
const info = gatewayInfo(gateway, databaseUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres');
await writeFile(`${DATA_DIR}/gateway.json`, JSON.stringify(info, null, 2));
log(`gateway on ${gateway.neonHttpUrl.replace('/sql', '')} (postgres: ${gateway.backend.postgres}, redis: ${gateway.backend.redis})`);

configureDriver(info);
// Kept open between live steps (no idle timeout): it must outlive a PostgreSQL restart, which the
// guard makes a logged, recoverable event (the dead client is dropped, the next step reconnects).
const pool = guardPool(
  new Pool({ connectionString: info.databaseUrl, max: 2, idleTimeoutMillis: 0, application_name: 'npm start' }),
  'database pool',
  log,
);
// The live simulation is the ingest path: each connection gets ingest's statement_timeout before its
// first query (node-postgres runs a client's queries in order).
pool.on(
  'connect',
  (c: Queryable) =>
    void setSessionTimeout(c, Number(process.env.INGEST_STATEMENT_TIMEOUT_MS) || STATEMENT_TIMEOUT_MS.ingest).catch(() => undefined),
);
const db = drizzle({ client: neon(info.databaseUrl) });
const now = new Date();
const client = await pool.connect();
try {
  await migrate(client, log);
  const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM countries');
  if (rows[0].n === 0) {
    log('empty database: loading the demo data set (about a minute the first time)');
    await loadDemoData(client, now, log);
  }
} finally {
  client.release();
}
const keys = await createDemoTenants(db, now);
await writeFile(KEYS_FILE, JSON.stringify(keys, null, 2));
// The push streams' change signal (shared/streams/signal.ts): the live steps and scans bump it.
const signals = createStore({ UPSTASH_REDIS_REST_URL: info.upstashUrl, UPSTASH_REDIS_REST_TOKEN: info.upstashToken, REDIS_PREFIX: '' });
// New URLs per live step (the streams benchmark raises it to deliver more events per minute).
const LIVE_NEW_URLS = Number(process.env.LIVE_NEW_URLS) || 1;
const LIVE_STEP_MS = Number(process.env.LIVE_STEP_MS) || 60_000;
// Mention lists get their matches from scans; run them now rather than waiting for the cron.
const scanner = await pool.connect();
try {
  const { rows } = await scanner.query<{ id: string }>(`SELECT id::text FROM tracking_lists WHERE kind = 'mention' AND active`);
  for (const { id } of rows) {
    await scanMentionList(scanner, id, now);
    await announcer(signals, listTopic(id))();
  }
  log(`scanned ${rows.length} mention list(s)`);
} finally {
  scanner.release();
}

// Live simulation (LIVE=off to stop it): top up missed hours now, then a step every minute.
const live = process.env.LIVE !== 'off';
if (live) {
  const client = await pool.connect();
  try {
    const hours = await topUp(client, now);
    if (hours) log(`live: topped up ${hours} missed hour(s)`);
  } finally {
    client.release();
  }
  // Each minute's lines go into the local bucket as the crawler's files do, and load through the
  // queue consumer (the production path: docs/INGEST.md "The drop").
  setInterval(async () => {
    const client = await pool.connect().catch(() => null);
    if (!client) return;
    try {
      const at = new Date();
      const lines = await liveLines(client, at, LIVE_NEW_URLS, 40);
      await putDrop(
        `http://127.0.0.1:${PORT}`,
        `live/${at.toISOString().slice(0, 19).replace(/[-:T]/g, '/')}.ndjson`,
        `${lines.join('\n')}\n`,
      );
    } catch (err) {
      log(`live step failed: ${(err as Error).message}`);
    } finally {
      client.release();
    }
  }, LIVE_STEP_MS).unref();
}

const inspector = await freePort();
const full = keys.find((k) => k.name === 'full')!;
const vars = {
  // /docs offers it for "try it" (loopback only; never set in a deployed Worker).
  DOCS_DEMO_KEY: full.key,
  // Not in wrangler.toml (a secret in production): the dev-only cursor key, accepted in development only.
  CURSOR_SECRET: DEV_CURSOR_SECRET,
  ENVIRONMENT: 'development',
  DATABASE_URL: info.databaseUrl,
  NEON_HTTP_ENDPOINT: info.neonHttpUrl,
  // The consumers' WebSocket transactions (the drop's ingest, mention scans) go through the gateway's relay.
  NEON_WS_PROXY: info.neonWsProxy,
  // A fixed clock for demos and benchmarks (NOW=2026-03-01T13:30:00Z npm start), as the tests set it.
  ...(process.env.NOW ? { NOW: process.env.NOW } : {}),
  // Whatever run was pending when npm start last stopped is resumed by the cron run at boot (below).
  INGEST_STALLED_MS: '0',
  UPSTASH_REDIS_REST_URL: info.upstashUrl,
  UPSTASH_REDIS_REST_TOKEN: info.upstashToken,
};
const wrangler = spawn(
  'wrangler',
  [
    'dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(PORT),
    '--inspector-port',
    String(inspector),
    '--log-level',
    'warn',
    // The local bucket and queue (the drop) persist beside the embedded database.
    '--persist-to',
    `${DATA_DIR}/wrangler`,
    ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}:${v}`]),
  ],
  // No request.cf lookup: local development needs no call to Cloudflare.
  { stdio: 'inherit', env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' } },
);

const base = `http://127.0.0.1:${PORT}`;
// `npm run drop` finds the API here (scripts/lib/local-drop.ts).
await writeFile(API_FILE, JSON.stringify({ url: base }));
// The local queue does not outlive npm start: once the API answers, one cron run hands any drop run
// left pending (npm start stopped mid-file) a fresh notification.
void (async () => {
  for (let i = 0; i < 120 && wrangler.exitCode === null; i++) {
    const up = await fetch(`${base}/openapi.json`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) {
      await fetch(`${base}/cdn-cgi/local/scheduled`).catch(() => undefined);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
})();
console.log(`
Discovery analytics API on ${base}
  docs      ${base}/docs  ("try it" is filled in with the full demo key)
  openapi   ${base}/openapi.json
  mcp       ${base}/mcp  (MCP over Streamable HTTP; send a key header as for REST)

Demo keys (also in ${KEYS_FILE}):
${keys.map((k) => `  ${k.name.padEnd(14)} ${k.key}  ${k.countries ? k.countries.join(',') : 'all markets'}`).join('\n')}

Try:
  curl -H 'X-API-Key: ${full.key}' ${base}/v1/geo/regions
  curl -H 'Authorization: Bearer ${full.key}' '${base}/v1/geo/regions/${full.countries?.[0] ?? 'US'}'
  curl -H 'X-API-Key: ${full.key}' '${base}/v2/geo/languages?with_article_counts=true'
  curl -H 'X-API-Key: ${full.key}' '${base}/v1/articles?category=/Sports&limit=5'
  curl -H 'X-API-Key: ${full.key}' '${base}/v1/analytics/categories?period=7d&top_level=false'
  curl -H 'X-API-Key: ${full.key}' '${base}/v1/trends?state=hot&sort_by=article_count&limit=5'
  curl -H 'X-API-Key: ${full.key}' '${base}/v1/themes'
  curl -H 'X-API-Key: ${full.key}' '${base}/v1/entities/trending?region=${full.countries?.[0] ?? 'US'}&period=7d&limit=5'
  curl -i -H 'X-API-Key: ${full.key}' '${base}/v2/feed?period=24h&category=/Sports&limit=5'
  curl -H 'X-API-Key: ${full.key}' '${base}/v2/live?since_minutes=120&limit=5'
  curl -H 'X-API-Key: ${full.key}' -H 'Accept: application/json, text/event-stream' -H 'Content-Type: application/json' \\
    -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_regions","arguments":{}}}' ${base}/mcp
`);

let stopping = false;
const shutdown = async () => {
  stopping = true;
  if (wrangler.exitCode === null) wrangler.kill('SIGTERM');
  await pool.end().catch(() => undefined);
  await gateway.close().catch(() => undefined);
};
const stop = async () => {
  await shutdown();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
// Either half alone is a broken API: if wrangler dies, stop the gateway; if this process (the
// gateway) meets an error nothing handles, stop wrangler. Both with a message saying so.
exitOnFatal('start', shutdown);
wrangler.on('exit', async (code, signal) => {
  if (stopping) return;
  console.error(`[start] wrangler dev exited (${signal ?? `code ${code}`}); stopping the gateway. Run npm start again.`);
  await gateway.close().catch(() => undefined);
  process.exit(code || 1);
});
