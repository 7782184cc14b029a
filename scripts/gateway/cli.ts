// Runs the local gateway until SIGINT/SIGTERM.
//   DATABASE_URL   postgres://... (else embedded PGlite under PGLITE_DIR, default .data/pglite)
//   REDIS_URL      redis://...    (else the in-process Redis engine)
//   GATEWAY_PORT   default 8788;  GATEWAY_HOST default 127.0.0.1
//   UPSTASH_REDIS_REST_TOKEN  bearer token clients must send (default local-token)
//   --rtt MS (or GATEWAY_RTT_MS)  delay added to every SQL and Redis request (the distance to the data region)
import { parseArgs } from 'node:util';
import { exitOnFatal } from '../lib/resilient';
import { startGateway } from './index';

const env = process.env;
const { values } = parseArgs({ options: { rtt: { type: 'string' } } });
const rtt = Number(values.rtt ?? env.GATEWAY_RTT_MS ?? 0);
if (!Number.isFinite(rtt) || rtt < 0) throw new Error(`--rtt takes milliseconds >= 0, got ${values.rtt ?? env.GATEWAY_RTT_MS}`);
const gateway = await startGateway({
  databaseUrl: env.DATABASE_URL || undefined,
  redisUrl: env.REDIS_URL || undefined,
  pgliteDir: env.PGLITE_DIR || undefined,
  host: env.GATEWAY_HOST || undefined,
  port: env.GATEWAY_PORT ? Number(env.GATEWAY_PORT) : 8788,
  redisToken: env.UPSTASH_REDIS_REST_TOKEN || undefined,
  rttMs: rtt,
  log: (line) => console.log(`[gateway] ${line}`),
});

console.log(`[gateway] postgres backend: ${gateway.backend.postgres}, redis backend: ${gateway.backend.redis}`);
console.log(`NEON_HTTP_URL=${gateway.neonHttpUrl}`);
console.log(`NEON_WS_PROXY=${gateway.neonWsProxy}`);
console.log(`UPSTASH_REDIS_REST_URL=${gateway.upstashUrl}`);
console.log(`UPSTASH_REDIS_REST_TOKEN=${gateway.upstashToken}`);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`[gateway] ${signal}: closing`);
  const force = setTimeout(() => process.exit(1), 10_000);
  force.unref();
  await gateway.close();
  process.exit(0);
}
exitOnFatal('gateway', () => gateway.close());
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
