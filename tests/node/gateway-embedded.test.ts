// The local gateway's embedded backends (`npm start` without DATABASE_URL / REDIS_URL): PGlite
// behind Neon's HTTP and WebSocket protocols, and the in-process Redis engine behind Upstash REST,
// checked through the real client libraries in Node. Then the differential check: the in-process
// engine against the machine's real Redis (same commands, same replies), and @upstash/ratelimit
// through both gateways with the same mocked clock (same decisions).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { neon, Pool } from '@neondatabase/serverless';
import { Ratelimit } from '@upstash/ratelimit';
import { Redis } from '@upstash/redis';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { startGateway, type Gateway } from '../../scripts/gateway/index';
import { MemoryRedis } from '../../scripts/gateway/memory-redis';
import { RealRedis } from '../../scripts/gateway/redis-real';
import type { Reply } from '../../scripts/gateway/redis-types';
import { checkArrayMode, checkConcurrentQueries, checkFailedBatch, checkSqlError } from '../shared/neon-checks';
import { checkCollections, checkStringsAndCounters } from '../shared/upstash-checks';
import { caught, configureNeon, showReply, upstashRaw } from './support/gateway';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const RUN = crypto.randomUUID().replaceAll('-', '').slice(0, 12);
const P = `gwtest:${RUN}:`; // prefix of every key this file writes to the real Redis
// Any Neon-style connection string: PGlite has one database, every name maps to it.
const DB_URL = 'postgresql://neondb_owner:npg_secret@ep-local-123.us-east-2.aws.neon.tech/neondb?sslmode=require';

const gatewayLog: string[] = [];
let gw: Gateway;

beforeAll(async () => {
  gw = await startGateway({ pgliteDir: 'memory://', log: (line) => gatewayLog.push(line) });
  configureNeon(gw);
});

// The gateway's log (pool errors, relay errors, 500s) is printed when a test fails.
beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.log(`gateway log:\n  ${gatewayLog.join('\n  ')}`));
});

afterAll(async () => {
  await gw?.close();
  const real = new RealRedis(REDIS_URL);
  const keys = (await real.exec(['KEYS', `${P}*`])) as Buffer[];
  if (keys.length) await real.exec(['DEL', ...keys.map(String)]);
  await real.close();
});

it('reports its embedded backends on /health', async () => {
  expect(gw.backend).toEqual({ postgres: 'pglite', redis: 'memory' });
  const res = await fetch(`http://127.0.0.1:${gw.port}/health`);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ ok: true, postgres: 'pglite', redis: 'memory', checks: { postgres: 'ok', redis: 'ok' } });
});

describe('PGlite through neon() over HTTP', () => {
  it('round-trips column types as the driver parses them', async () => {
    const [r] = await neon(DB_URL)`select '2024-05-06T07:08:09.123Z'::timestamptz as ts, 12.345::numeric as n,
      9007199254740993::bigint as b, array[1,2,3]::int[] as ia, array['a','b c', null]::text[] as ta,
      '{"x":[1,{"y":"z"}]}'::jsonb as j, null::text as nul, '\\xdeadbeef'::bytea as by, true as bo,
      false as bf, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid as u, 'héllo ✓' as t`;
    expect(r.ts).toBeInstanceOf(Date);
    expect((r.ts as Date).toISOString()).toBe('2024-05-06T07:08:09.123Z');
    expect(r.n).toBe('12.345');
    expect(r.b).toBe('9007199254740993');
    expect(r.ia).toEqual([1, 2, 3]);
    expect(r.ta).toEqual(['a', 'b c', null]);
    expect(r.j).toEqual({ x: [1, { y: 'z' }] });
    expect(r.nul).toBeNull();
    expect([...(r.by as Uint8Array)]).toEqual([0xde, 0xad, 0xbe, 0xef]);
    expect(r.bo).toBe(true);
    expect(r.bf).toBe(false);
    expect(r.u).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    expect(r.t).toBe('héllo ✓');
  });

  it('round-trips parameters', async () => {
    const d = new Date('2020-01-02T03:04:05.678Z');
    const [r] = await neon(DB_URL)`select ${d}::timestamptz as d, ${Buffer.from([1, 2, 255])}::bytea as by,
      ${[4, 5]}::int[] as arr, ${JSON.stringify({ k: 'v' })}::jsonb as j, ${null}::int as nul, ${'o\'q"'} as s`;
    expect((r.d as Date).toISOString()).toBe(d.toISOString());
    expect([...(r.by as Uint8Array)]).toEqual([1, 2, 255]);
    expect(r.arr).toEqual([4, 5]);
    expect(r.j).toEqual({ k: 'v' });
    expect(r.nul).toBeNull();
    expect(r.s).toBe('o\'q"');
  });

  it('supports arrayMode and fullResults', () => checkArrayMode(DB_URL));

  it('a SQL error is a NeonDbError with the Postgres code', () => checkSqlError(DB_URL));

  it('a transaction batch that fails midway leaves nothing behind', () => checkFailedBatch(DB_URL));

  it('answers concurrent queries, errors mixed in, each with its own result', () => checkConcurrentQueries(DB_URL));
});

describe('PGlite through Pool over the WebSocket relay', () => {
  it('runs queries with parameters and parsed types, in parallel', async () => {
    const pool = new Pool({ connectionString: DB_URL, max: 3 });
    try {
      const { rows } = await pool.query('select $1::int + 1 as n, now() as t, $2::jsonb as j', [41, '{"a":1}']);
      expect(rows[0].n).toBe(42);
      expect(rows[0].t).toBeInstanceOf(Date);
      expect(rows[0].j).toEqual({ a: 1 });
      const parallel = await Promise.all([1, 2, 3, 4, 5].map((i) => pool.query('select $1::int as i', [i])));
      expect(parallel.map((r) => r.rows[0].i)).toEqual([1, 2, 3, 4, 5]);
      expect((await caught(pool.query('select * from gw_no_such_table'))).code).toBe('42P01');
    } finally {
      await pool.end();
    }
  });

  it('an interactive transaction: rollback discards, commit keeps', async () => {
    const sql = neon(DB_URL);
    await sql.query('create table ws_t (id int primary key, note text)');
    const pool = new Pool({ connectionString: DB_URL, max: 2 });
    try {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`insert into ws_t values (100, 'tx')`);
        expect((await client.query('select note from ws_t where id = 100')).rows).toEqual([{ note: 'tx' }]);
        await client.query('ROLLBACK');
        await client.query('BEGIN');
        await client.query('insert into ws_t values ($1, $2)', [101, 'kept']);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      // (No read from another connection inside the transaction: PGlite is one backend, and an
      // open transaction holds it until it ends.)
      expect(await sql`select id, note from ws_t order by id`).toEqual([{ id: 101, note: 'kept' }]);
    } finally {
      await pool.end();
    }
  });

  it('persists a PGlite directory across a gateway restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-pglite-'));
    try {
      const first = await startGateway({ pgliteDir: dir });
      try {
        configureNeon(first);
        await neon(DB_URL)`create table gw_persist (v text)`;
        await neon(DB_URL)`insert into gw_persist values ('kept')`;
      } finally {
        await first.close();
      }
      const second = await startGateway({ pgliteDir: dir });
      try {
        configureNeon(second);
        expect(await neon(DB_URL)`select v from gw_persist`).toEqual([{ v: 'kept' }]);
      } finally {
        await second.close();
      }
    } finally {
      configureNeon(gw);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the in-process Redis engine through @upstash/redis', () => {
  const redis = () => new Redis({ url: gw.upstashUrl, token: gw.upstashToken }); // base64: the default
  const plain = () => new Redis({ url: gw.upstashUrl, token: gw.upstashToken, responseEncoding: false });

  it('strings, JSON values, counters, expiry', async () => {
    await checkStringsAndCounters(redis(), P);
    await redis().set(`${P}s`, 'héllo ✓ OK');
    expect(await plain().get(`${P}s`)).toBe('héllo ✓ OK');
  });

  it('hashes, sets, sorted sets, keys, scan', () => checkCollections(redis(), P));

  it('pipeline and multi-exec', async () => {
    const r = redis();
    expect(await r.pipeline().set(`${P}pa`, 'A').incr(`${P}pn`).get(`${P}pa`).exec()).toEqual(['OK', 1, 'A']);
    const out = await r.pipeline().incr(`${P}pa`).get(`${P}pa`).exec({ keepErrors: true });
    expect(String(out[0].error)).toMatch(/not an integer/);
    expect(out[1].result).toBe('A');
    expect(await r.multi().incr(`${P}mn`).incr(`${P}mn`).get(`${P}mn`).set(`${P}ms`, 'ü').get(`${P}ms`).exec()).toEqual([
      1,
      2,
      2,
      'OK',
      'ü',
    ]);
    const tx = await r.multi().set(`${P}mx`, 'text').incr(`${P}mx`).get(`${P}mx`).exec({ keepErrors: true });
    expect(tx.map((x) => x.result ?? String(x.error))).toEqual(['OK', expect.stringMatching(/not an integer/), 'text']);
  });

  it('REST shapes: base64 bulk strings, plain OK and numbers, errors, auth', async () => {
    const value = 'ü ✓ OK \u0000 end';
    await redis().set(`${P}b`, value);
    expect(await redis().get(`${P}b`)).toBe(value);
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const headers = { 'upstash-encoding': 'base64' };
    expect(await upstashRaw(gw, ['MGET', `${P}b`, `${P}missing`], { headers })).toEqual({
      status: 200,
      body: { result: [b64(value), null] },
    });
    expect(await upstashRaw(gw, ['GET', `${P}b`])).toEqual({ status: 200, body: { result: value } });
    expect(await upstashRaw(gw, ['SET', `${P}c`, 1], { headers })).toEqual({ status: 200, body: { result: 'OK' } });
    expect(await upstashRaw(gw, ['PING'], { headers })).toEqual({ status: 200, body: { result: b64('PONG') } });
    expect(await upstashRaw(gw, ['INCR', `${P}c`], { headers })).toEqual({ status: 200, body: { result: 2 } });
    expect(
      await upstashRaw(
        gw,
        [
          ['GET', `${P}c`],
          ['INCR', `${P}b`],
        ],
        { headers, path: '/pipeline' },
      ),
    ).toEqual({
      status: 200,
      body: [{ result: b64('2') }, { error: 'ERR value is not an integer or out of range' }],
    });
    expect(
      await upstashRaw(
        gw,
        [
          ['INCR', `${P}c`],
          ['GET', `${P}c`],
        ],
        { headers, path: '/multi-exec' },
      ),
    ).toEqual({
      status: 200,
      body: [{ result: 3 }, { result: b64('3') }],
    });
    const wrongType = await upstashRaw(gw, ['HGET', `${P}b`, 'f']);
    expect(wrongType.status).toBe(400);
    expect((wrongType.body as { error: string }).error).toMatch(/^WRONGTYPE/);
    expect(await upstashRaw(gw, ['EVALSHA', 'ffffffffffffffffffffffffffffffffffffffff', 0])).toEqual({
      status: 400,
      body: { error: 'NOSCRIPT No matching script. Please use EVAL.' },
    });
    expect(await upstashRaw({ ...gw, upstashToken: 'wrong' }, ['PING'])).toEqual({ status: 401, body: { error: 'Unauthorized' } });
    expect(await caught(new Redis({ url: gw.upstashUrl, token: 'wrong', retry: false }).get('x'))).toBeInstanceOf(Error);
  });
});

describe('@upstash/ratelimit on the in-process engine', () => {
  const WINDOW = 10_000;
  afterAll(() => vi.restoreAllMocks());

  for (const [name, make] of [
    ['slidingWindow', () => Ratelimit.slidingWindow(3, '10 s')],
    ['fixedWindow', () => Ratelimit.fixedWindow(3, '10 s')],
    ['tokenBucket', () => Ratelimit.tokenBucket(1, '10 s', 3)],
  ] as const) {
    it(`${name}(3, 10 s): 3 allowed with remaining 2, 1, 0, then denied`, async () => {
      // 1 s into a window: the sequence cannot straddle a boundary. Only the limiter's clock is mocked.
      const windowStart = Math.floor(Date.now() / WINDOW) * WINDOW;
      const now = vi.spyOn(Date, 'now').mockReturnValue(windowStart + 1_000);
      try {
        const rl = new Ratelimit({
          redis: new Redis({ url: gw.upstashUrl, token: gw.upstashToken }),
          limiter: make(),
          prefix: `${P}rl:${name}`,
          ephemeralCache: false,
        });
        const seq = [];
        for (let i = 0; i < 5; i++) seq.push(await rl.limit('user-1'));
        expect(seq.map((r) => r.success)).toEqual([true, true, true, false, false]);
        expect(seq.map((r) => r.remaining)).toEqual([2, 1, 0, 0, 0]);
        expect(seq.every((r) => r.limit === 3 && r.reason === undefined)).toBe(true);
        if (name !== 'tokenBucket') expect(seq.map((r) => r.reset)).toEqual(Array(5).fill(windowStart + WINDOW));
        expect((await rl.getRemaining('user-1')).remaining).toBe(0);
        expect((await rl.limit('user-2')).remaining).toBe(2);
        await rl.resetUsedTokens('user-1');
        expect((await rl.limit('user-1')).success).toBe(true);
        now.mockReturnValue(windowStart + 1_000 + WINDOW);
        expect((await rl.limit('user-2')).success).toBe(true);
      } finally {
        now.mockRestore();
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// The `npm start` combination: Worker code inside workerd against the embedded backends.

const WORKER = `
import { neon, neonConfig, Pool } from '@neondatabase/serverless';
import { Redis } from '@upstash/redis/cloudflare';
import { Ratelimit } from '@upstash/ratelimit';

export default {
  async fetch(request, env) {
    neonConfig.fetchEndpoint = env.NEON_HTTP_ENDPOINT;
    neonConfig.wsProxy = () => env.NEON_WS_PROXY;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineConnect = false;
    const out = {};
    const sql = neon(env.DATABASE_URL);
    const [r] = await sql\`select '2024-05-06T07:08:09.123Z'::timestamptz as t, 41::int + 1 as i,
      '{"a":[1]}'::jsonb as j, '\\\\x0102'::bytea as b, 9007199254740993::bigint as big\`;
    out.http = { t: r.t instanceof Date && r.t.toISOString(), i: r.i, j: r.j, b: [...r.b], big: r.big };
    try { await sql\`select * from gw_workerd_missing\`; } catch (e) { out.err = { name: e.name, code: e.code }; }
    await sql\`create table if not exists gw_workerd (id int primary key)\`;
    try {
      await sql.transaction([sql\`insert into gw_workerd values (1)\`, sql\`insert into gw_workerd values (1)\`]);
    } catch (e) { out.batchErr = e.code; }
    out.batch = await sql.transaction([sql\`select count(*)::int as c from gw_workerd\`, sql\`select 2::int as b\`]);
    const pool = new Pool({ connectionString: env.DATABASE_URL });
    const poolErrors = [];
    let ending = false;
    pool.on('error', (e) => { if (!ending) poolErrors.push(e.message); });
    const client = await pool.connect();
    await client.query('BEGIN');
    await client.query('insert into gw_workerd values ($1)', [2]);
    await client.query('ROLLBACK');
    await client.query('BEGIN');
    const x = await client.query('insert into gw_workerd values ($1) returning id, now() as t', [3]);
    await client.query('COMMIT');
    client.release();
    ending = true;
    await pool.end();
    out.ws = { id: x.rows[0].id, isDate: x.rows[0].t instanceof Date, errors: poolErrors };
    out.committed = await sql\`select id from gw_workerd order by id\`;
    const redis = Redis.fromEnv(env);
    const key = env.PREFIX + crypto.randomUUID();
    await redis.set(key, { v: 'ü' }, { ex: 60 });
    out.redis = [await redis.get(key), await redis.pipeline().incr(key + ':n').incr(key + ':n').exec(),
      await redis.multi().incr(key + ':n').get(key + ':n').exec()];
    const rl = new Ratelimit({ redis, limiter: Ratelimit.fixedWindow(3, '10 s'), prefix: key, ephemeralCache: false });
    const seq = [];
    for (let i = 0; i < 4; i++) seq.push(await rl.limit('id'));
    out.rl = seq.map((s) => [s.success, s.remaining]);
    return Response.json(out);
  },
};
`;

describe('inside workerd (Miniflare), as `npm start` runs Worker code', () => {
  it('neon HTTP, Pool over WebSocket, Upstash and ratelimit against PGlite and the in-process engine', async () => {
    const bundle = await build({
      stdin: { contents: WORKER, resolveDir: process.cwd(), loader: 'js' },
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
      mainFields: ['module', 'main'],
      external: ['node:*', 'cloudflare:*'],
      write: false,
      logLevel: 'silent',
    });
    const text = (value: string) => ({ type: 'text' as const, value });
    const mf = new Miniflare({
      workers: [
        {
          config: {
            name: 'gateway-embedded-check',
            compatibilityDate: '2026-11-01',
            compatibilityFlags: ['nodejs_compat'],
            manifest: {
              mainModule: 'worker.js',
              modulesRoot: '/',
              modules: { 'worker.js': { type: 'esm', contents: bundle.outputFiles[0].text } },
            },
            env: {
              DATABASE_URL: text(DB_URL),
              NEON_HTTP_ENDPOINT: text(gw.neonHttpUrl),
              NEON_WS_PROXY: text(gw.neonWsProxy),
              UPSTASH_REDIS_REST_URL: text(gw.upstashUrl),
              UPSTASH_REDIS_REST_TOKEN: text(gw.upstashToken),
              PREFIX: text(`${P}workerd:`),
            },
          },
        },
      ],
    });
    try {
      // Keep the ratelimit sequence inside one 10 s window (real time in workerd).
      const into = Date.now() % 10_000;
      if (into > 8_500) await new Promise((done) => setTimeout(done, 10_000 - into + 50));
      const res = await mf.dispatchFetch('http://worker/');
      const body = await res.text();
      expect(res.status, body).toBe(200);
      expect(JSON.parse(body)).toEqual({
        http: { t: '2024-05-06T07:08:09.123Z', i: 42, j: { a: [1] }, b: [1, 2], big: '9007199254740993' },
        err: { name: 'NeonDbError', code: '42P01' },
        batchErr: '23505',
        batch: [[{ c: 0 }], [{ b: 2 }]],
        ws: { id: 3, isDate: true, errors: [] },
        committed: [{ id: 3 }],
        redis: [{ v: 'ü' }, [1, 2], [3, 3]],
        rl: [
          [true, 2],
          [true, 1],
          [true, 0],
          [false, 0],
        ],
      });
    } finally {
      await mf.dispose();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Differential: the in-process engine against a real Redis.

const COMMANDS: string[][] = [
  ['SET', 'a', '10'],
  ['GET', 'a'],
  ['INCR', 'a'],
  ['INCRBY', 'a', '-20'],
  ['DECR', 'a'],
  ['DECRBY', 'a', '5'],
  ['INCRBY', 'a', '1.5'],
  ['INCRBY', 'a', '01'],
  ['SET', 'b', 'x'],
  ['INCR', 'b'],
  ['SET', 'a', '1', 'NX'],
  ['SET', 'a', '1', 'XX', 'GET'],
  ['SET', 'new', '1', 'XX'],
  ['SET', 'a', '2', 'EX', '0'],
  ['SET', 'a', '2', 'NX', 'XX'],
  ['SET', 'c', 'v', 'PX', '100000'],
  ['PTTL', 'missing'],
  ['TTL', 'a'],
  ['EXPIRE', 'a', '100', 'NX'],
  ['EXPIRE', 'a', '50', 'NX'],
  ['EXPIRE', 'a', '10', 'GT'],
  ['EXPIRE', 'a', '10', 'LT'],
  ['PERSIST', 'a'],
  ['TTL', 'a'],
  ['EXPIRE', 'missing', '10'],
  ['INCRBYFLOAT', 'f', '0.1'],
  ['INCRBYFLOAT', 'f', '0.2'],
  ['INCRBYFLOAT', 'f', '10'],
  ['INCRBYFLOAT', 'f', '-10.3'],
  ['INCRBYFLOAT', 'f', '2.5e3'],
  ['INCRBYFLOAT', 'b', '1'],
  ['MSET', 'm1', '1', 'm2', '2'],
  ['MGET', 'm1', 'h', 'm2', 'zz'],
  ['MSET', 'm1'],
  ['GET'],
  ['DEL', 'm1', 'm2', 'm3'],
  ['EXISTS', 'a', 'a', 'b', 'none'],
  ['TYPE', 'a'],
  ['HSET', 'h', 'f1', 'v1', 'f2', '2'],
  ['HSET', 'h', 'f1', 'v9', 'f3', '3'],
  ['HGET', 'h', 'f1'],
  ['HGETALL', 'h'],
  ['HINCRBY', 'h', 'f2', '5'],
  ['HINCRBY', 'h', 'f1', '1'],
  ['HMGET', 'h', 'f1', 'nope'],
  ['HDEL', 'h', 'f1', 'x'],
  ['HLEN', 'h'],
  ['HSET', 'h', 'odd'],
  ['GET', 'h'],
  ['HGET', 'a', 'x'],
  ['HDEL', 'h', 'f2', 'f3'],
  ['EXISTS', 'h'],
  ['SADD', 's', 'a', 'b', 'a'],
  ['SREM', 's', 'a', 'q'],
  ['SISMEMBER', 's', 'b'],
  ['SCARD', 's'],
  ['SMEMBERS', 's'],
  ['ZADD', 'z', '1', 'a', '2', 'b', '2', 'aa', '1.1', 'c'],
  ['ZADD', 'z', 'NX', '5', 'a', '6', 'd'],
  ['ZADD', 'z', 'XX', 'CH', '7', 'a', '8', 'e'],
  ['ZADD', 'z', 'GT', '1', 'a'],
  ['ZADD', 'z', 'INCR', '0.5', 'b'],
  ['ZADD', 'z', 'x', 'a'],
  ['ZADD', 'z', 'NX', 'XX', '1', 'a'],
  ['ZRANGE', 'z', '0', '-1', 'WITHSCORES'],
  ['ZRANGE', 'z', '1', '2'],
  ['ZRANGE', 'z', '-2', '100'],
  ['ZRANGE', 'z', '5', '1'],
  ['ZRANGE', 'z', '(1.1', '+inf', 'BYSCORE'],
  ['ZRANGE', 'z', '+inf', '-inf', 'BYSCORE', 'REV', 'LIMIT', '1', '2', 'WITHSCORES'],
  ['ZRANGE', 'z', '0', '1', 'LIMIT', '0', '1'],
  ['ZREVRANGE', 'z', '0', '1'],
  ['ZRANGEBYSCORE', 'z', '-inf', '2', 'WITHSCORES'],
  ['ZCOUNT', 'z', '(1.1', '7'],
  ['ZSCORE', 'z', 'c'],
  ['ZINCRBY', 'z', '2', 'c'],
  ['ZREM', 'z', 'a', 'zz'],
  ['ZCARD', 'z'],
  ['ZREMRANGEBYSCORE', 'z', '-inf', '(3'],
  ['ZRANGE', 'z', '0', '-1', 'WITHSCORES'],
  ['ZCOUNT', 'z', 'x', '1'],
  ['GETDEL', 'c'],
  ['GETDEL', 'c'],
  ['STRLEN', 'b'],
  ['SETNX', 'b', 'q'],
  ['SETEX', 'sx', '100', 'v'],
  ['TTL', 'sx'],
  ['NOSUCHCMD', 'a'],
  ['PING'],
  ['PING', 'hi'],
  ['ECHO', 'e'],
];

/** Puts this run's prefix on the key arguments (the real Redis is shared with other tests). */
function withPrefix(c: string[], prefix: string): string[] {
  if (['PING', 'ECHO', 'NOSUCHCMD'].includes(c[0]) || c.length < 2) return c;
  if (c[0] === 'MSET') return [c[0], ...c.slice(1).map((x, i) => (i % 2 === 0 ? prefix + x : x))];
  const multiKey = ['MGET', 'DEL', 'EXISTS'].includes(c[0]);
  return [c[0], ...c.slice(1).map((x, i) => (i === 0 || multiKey ? prefix + x : x))];
}

/** A reply with the prefix taken out of every string, for comparison. */
const unprefixed = (r: Reply, prefix: string) =>
  JSON.parse(JSON.stringify(showReply(r)), (_k, v: unknown) => (typeof v === 'string' ? v.replaceAll(prefix, '') : v));

/** Scripts of no library: the in-process engine runs their text in a Lua interpreter, as Redis does. */
const SCRIPTS: Array<[string, string[], string[]]> = [
  ["return redis.call('INCRBY', KEYS[1], ARGV[1]) * 2", ['n'], ['5']],
  ["return {1, 2.9, -2.9, 'x', false, true, nil, 'after nil'}", [], []],
  ["redis.call('HSET', KEYS[1], 'a', 1); return redis.call('HMGET', KEYS[1], 'a', 'zz')", ['h'], []],
  ["local v = redis.call('GET', KEYS[1]); return type(v)", ['missing'], []],
  ["return redis.pcall('INCR', KEYS[1])", ['h'], []],
  ["return redis.status_reply('FINE')", [], []],
  ["return redis.error_reply('MY failure')", [], []],
  ["redis.call('SET', KEYS[1], 3.5); return redis.call('GET', KEYS[1])", ['f'], []],
  ["redis.call('SET', KEYS[1], 10 / 4 * 1e20); return redis.call('GET', KEYS[1])", ['f'], []],
  ['return #KEYS * 10 + #ARGV', ['a', 'b'], ['x', 'y', 'z']],
  ['return unpack({7, 8})', [], []],
  ["return tonumber('0x10') + tonumber(' 5 ')", [], []],
  ['#!lua flags=no-writes\nreturn ARGV[1]', [], ['shebang']],
  ['return {}', [], []],
];

describe('differential: in-process engine vs real Redis', () => {
  let real: RealRedis;
  beforeAll(() => {
    real = new RealRedis(REDIS_URL);
  });
  afterAll(async () => {
    await real.close();
  });

  it('gives the same reply to every command of a mixed sequence', async () => {
    const mem = new MemoryRedis();
    const prefix = `${P}diff:`;
    const mismatches: string[] = [];
    for (const c of COMMANDS) {
      const cmd = withPrefix(c, prefix);
      const [r, m] = [unprefixed(await real.exec(cmd), prefix), unprefixed(await mem.exec(cmd), prefix)];
      if (JSON.stringify(m) !== JSON.stringify(r))
        mismatches.push(`${c.join(' ')}: redis ${JSON.stringify(r)}, memory ${JSON.stringify(m)}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('gives the same reply to scripts run in its Lua interpreter', async () => {
    const mem = new MemoryRedis();
    const prefix = `${P}lua:`;
    for (const [text, keys, argv] of SCRIPTS) {
      const cmd = ['EVAL', text, String(keys.length), ...keys.map((k) => prefix + k), ...argv];
      const [r, m] = [unprefixed(await real.exec(cmd), prefix), unprefixed(await mem.exec(cmd), prefix)];
      expect(m, text).toEqual(r);
    }
    // Errors raised by redis.call and at run time: Redis appends where the script stopped; the reply's kind is the same.
    for (const text of ["return redis.call('INCR', KEYS[1])", 'return nosuch.field', 'return {']) {
      const cmd = ['EVAL', text, '1', `${prefix}h`];
      const [r, m] = [showReply(await real.exec(cmd)), showReply(await mem.exec(cmd))];
      expect(String(m).split(' ')[0], text).toBe(String(r).split(' ')[0]);
      expect(String(m), text).toMatch(/^-(WRONGTYPE|ERR) /);
    }
  });

  it('gives the same MULTI/EXEC results, including an aborted transaction', async () => {
    const mem = new MemoryRedis();
    const t = `${P}tx:t`;
    await Promise.all([real.exec(['HSET', `${P}tx:h`, 'f', 'v']), mem.exec(['HSET', `${P}tx:h`, 'f', 'v'])]);
    for (const tx of [
      [
        ['INCR', t],
        ['INCR', `${P}tx:h`],
        ['GET', t],
      ], // a runtime error fails one command only
      [['INCR', t], ['GET']], // a queuing error (arity) aborts the whole transaction
      [
        ['INCR', t],
        ['NOSUCHCMD', t],
      ],
    ]) {
      expect(showReply((await mem.multi(tx)) as Reply), tx.join(' | ')).toEqual(showReply((await real.multi(tx)) as Reply));
    }
    expect(showReply(await mem.exec(['GET', t]))).toEqual(showReply(await real.exec(['GET', t])));
    expect(showReply(await real.exec(['GET', t]))).toBe('1');
  });

  it('@upstash/ratelimit decides identically over time (mocked clock, two gateways)', async () => {
    // The real side is the global setup's gateway (real PostgreSQL + real Redis).
    const realGw = { url: inject('upstashUrl'), token: inject('upstashToken') };
    const memGw = { url: gw.upstashUrl, token: gw.upstashToken };
    const realNow = Date.now();
    let now = Math.floor(realNow / 10_000) * 10_000 + 20_000_000; // window-aligned, far from real time
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      for (const [name, make] of [
        ['slidingWindow', () => Ratelimit.slidingWindow(5, '10 s')],
        ['fixedWindow', () => Ratelimit.fixedWindow(5, '10 s')],
        ['tokenBucket', () => Ratelimit.tokenBucket(2, '3 s', 5)],
        ['cachedFixedWindow', () => Ratelimit.cachedFixedWindow(5, '10 s')],
      ] as const) {
        const prefix = `${P}rl-diff:${name}`;
        const mk = ({ url, token }: { url: string; token: string }) =>
          new Ratelimit({
            redis: new Redis({ url, token }),
            limiter: make(),
            prefix,
            ephemeralCache: name === 'cachedFixedWindow' ? new Map() : false, // that one requires it
          });
        const [a, b] = [mk(realGw), mk(memGw)];
        // [ms to advance, rate]: several window boundaries, previous-window weighting, refills, refunds.
        const steps = [
          [0, 1],
          [100, 1],
          [1000, 3],
          [2000, 1],
          [6000, 1],
          [500, 1],
          [1500, 2],
          [3000, 1],
          [100, -2],
          [100, 1],
          [4000, 1],
          [9000, 1],
          [1, 1],
          [12000, 1],
          [2500, 4],
          [0, 1],
          [7000, 1],
          [700, 1],
        ];
        const seen = new Set<string>();
        for (const [adv, rate] of steps) {
          now += adv;
          const [x, y] = [await a.limit('id', { rate }), await b.limit('id', { rate })];
          const pick = (r: typeof x) => ({ success: r.success, remaining: r.remaining, reset: r.reset, limit: r.limit, reason: r.reason });
          expect(pick(y), `${name} at +${adv} rate ${rate}`).toEqual(pick(x));
          seen.add(`${x.success}:${x.reason}`);
          expect(await b.getRemaining('id'), `${name} getRemaining`).toEqual(await a.getRemaining('id'));
        }
        // Both outcomes occurred, decided by Redis (not a fail-open timeout).
        expect(seen.has('true:undefined'), [...seen].join(',')).toBe(true);
        expect(
          [...seen].some((v) => v.startsWith('false')),
          [...seen].join(','),
        ).toBe(true);
      }
    } finally {
      clock.mockRestore();
    }
  });
});
