// Runs the drivers inside workerd (Miniflare) against the gateway: what Worker code does.
//   tsx tests/gateway-node/workerd-check.ts [real|embedded]   (default real)
// The worker is bundled with esbuild (the Workers export conditions) and given the gateway's
// URLs as bindings; it sets neonConfig exactly as a Worker must.
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { startGateway } from '../../scripts/gateway/index';
import { assert, check, summary } from './harness';

const WORKER = `
import { neon, neonConfig, Pool } from '@neondatabase/serverless';
import { Redis } from '@upstash/redis/cloudflare';
import { Ratelimit } from '@upstash/ratelimit';

export default {
  async fetch(request, env) {
    neonConfig.fetchEndpoint = env.NEON_HTTP_URL;
    neonConfig.wsProxy = () => env.NEON_WS_PROXY;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineConnect = false;
    const out = {};
    const sql = neon(env.DATABASE_URL);
    const [r] = await sql\`select now() as t, 41::int + 1 as i, '{"a":[1]}'::jsonb as j, '\\\\x0102'::bytea as b\`;
    out.http = { isDate: r.t instanceof Date, i: r.i, j: r.j, b: [...r.b] };
    try { await sql\`select * from gw_workerd_missing\`; } catch (e) { out.err = { name: e.name, code: e.code }; }
    out.batch = await sql.transaction([sql\`select 1::int as a\`, sql\`select 2::int as b\`]);
    const pool = new Pool({ connectionString: env.DATABASE_URL });
    const client = await pool.connect();
    await client.query('BEGIN');
    const x = await client.query('select $1::int + 1 as n, now() as t', [1]);
    await client.query('COMMIT');
    client.release();
    await pool.end();
    out.ws = { n: x.rows[0].n, isDate: x.rows[0].t instanceof Date };
    const redis = new Redis({ url: env.UPSTASH_URL, token: env.UPSTASH_TOKEN });
    const key = 'gwworkerd:' + crypto.randomUUID();
    await redis.set(key, { v: 'ü' }, { ex: 60 });
    out.redis = await redis.get(key);
    await redis.del(key);
    const rl = new Ratelimit({ redis, limiter: Ratelimit.slidingWindow(3, '10 s'), prefix: key, ephemeralCache: false });
    out.rl = [];
    for (let i = 0; i < 4; i++) out.rl.push((await rl.limit('id')).success);
    await rl.resetUsedTokens('id');
    return Response.json(out);
  },
};
`;

const mode = process.argv[2] ?? 'real';
const gw = await startGateway(
  mode === 'real'
    ? { databaseUrl: 'postgres://postgres@127.0.0.1:5432/test', redisUrl: 'redis://127.0.0.1:6379' }
    : { pgliteDir: 'memory://' },
);
const bundle = await build({
  stdin: { contents: WORKER, resolveDir: process.cwd(), loader: 'js' },
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  conditions: ['workerd', 'worker', 'browser'],
  mainFields: ['module', 'main'],
  external: ['node:*', 'cloudflare:*'],
  write: false,
});
const text = (value: string) => ({ type: 'text' as const, value });
const mf = new Miniflare({
  workers: [
    {
      config: {
        name: 'gateway-check',
        compatibilityDate: '2026-11-01',
        compatibilityFlags: ['nodejs_compat'],
        manifest: {
          mainModule: 'worker.js',
          modulesRoot: '/',
          modules: { 'worker.js': { type: 'esm', contents: bundle.outputFiles[0].text } },
        },
        env: {
          DATABASE_URL: text(`postgresql://postgres:unused@db.localtest:5432/${mode === 'real' ? 'test' : 'neondb'}`),
          NEON_HTTP_URL: text(gw.neonHttpUrl),
          NEON_WS_PROXY: text(gw.neonWsProxy),
          UPSTASH_URL: text(gw.upstashUrl),
          UPSTASH_TOKEN: text(gw.upstashToken),
        },
      },
    },
  ],
});

await check(`workerd (${gw.backend.postgres} + ${gw.backend.redis}): neon http, ws pool, upstash, ratelimit`, async () => {
  const res = await mf.dispatchFetch('http://worker/');
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.deepEqual(JSON.parse(text), {
    http: { isDate: true, i: 42, j: { a: [1] }, b: [1, 2] },
    err: { name: 'NeonDbError', code: '42P01' },
    batch: [[{ a: 1 }], [{ b: 2 }]],
    ws: { n: 2, isDate: true },
    redis: { v: 'ü' },
    rl: [true, true, true, false],
  });
});

await mf.dispose();
await gw.close();
process.exit(summary() ? 1 : 0);
