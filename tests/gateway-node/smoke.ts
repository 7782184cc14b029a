// Node-side smoke test of the local gateway through the real client libraries.
//   tsx tests/gateway-node/smoke.ts [real|embedded|all]     (default all)
// real:     PostgreSQL at SMOKE_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test)
//           and Redis at SMOKE_REDIS_URL (default redis://127.0.0.1:6379)
// embedded: PGlite in a temporary directory (restarted once to check persistence) and the
//           in-process Redis engine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { neon } from '@neondatabase/serverless';
import { startGateway, type Gateway, type GatewayOptions } from '../../scripts/gateway/index';
import { assert, check, summary } from './harness';
import { configureNeon, neonChecks } from './smoke-neon';
import { upstashChecks } from './smoke-upstash';

const mode = process.argv[2] ?? 'all';
const pgUrl = process.env.SMOKE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.SMOKE_REDIS_URL ?? 'redis://127.0.0.1:6379';
const logs: string[] = [];
const log = (line: string) => logs.push(line);

async function withGateway(opts: GatewayOptions, fn: (gw: Gateway) => Promise<void>): Promise<void> {
  const gw = await startGateway({ ...opts, log });
  try {
    await check(`gateway up (${gw.backend.postgres} + ${gw.backend.redis}), /health`, async () => {
      const res = await fetch(`http://127.0.0.1:${gw.port}/health`);
      const body = (await res.json()) as Record<string, unknown>;
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.postgres, gw.backend.postgres);
      assert.equal(body.redis, gw.backend.redis);
    });
    await fn(gw);
  } finally {
    await gw.close();
  }
}

if (mode === 'real' || mode === 'all') {
  console.log(`# real backends: ${pgUrl}, ${redisUrl}`);
  await withGateway({ databaseUrl: pgUrl, redisUrl }, async (gw) => {
    // The driver needs a user, a host and a database; the host is ignored by the gateway.
    const dbUrl = `postgresql://postgres:unused@db.localtest:5432/${new URL(pgUrl).pathname.slice(1)}`;
    await neonChecks(gw, dbUrl, pgUrl);
    await upstashChecks(gw);
  });
}

if (mode === 'embedded' || mode === 'all') {
  const dir = mkdtempSync(join(tmpdir(), 'gw-pglite-'));
  console.log(`# embedded backends: PGlite at ${dir}, in-memory Redis`);
  const dbUrl = 'postgresql://neondb_owner:npg_secret@ep-local-123.us-east-2.aws.neon.tech/neondb?sslmode=require';
  try {
    await withGateway({ pgliteDir: dir }, async (gw) => {
      await neonChecks(gw, dbUrl);
      await upstashChecks(gw);
      configureNeon(gw);
      await neon(dbUrl)`create table gw_persist (v text); insert into gw_persist values ('kept')`.catch(async () => {
        // One statement per HTTP query, as on Neon: run them separately.
        await neon(dbUrl)`create table gw_persist (v text)`;
        await neon(dbUrl)`insert into gw_persist values ('kept')`;
      });
    });
    await withGateway({ pgliteDir: dir }, async (gw) => {
      await check('pglite: data persists across a restart', async () => {
        configureNeon(gw);
        assert.deepEqual(await neon(dbUrl)`select v from gw_persist`, [{ v: 'kept' }]);
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (logs.length) console.log(`# gateway log:\n${logs.map((l) => `  ${l}`).join('\n')}`);
process.exit(summary() ? 1 : 0);
