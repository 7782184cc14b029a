// The local gateway (scripts/gateway) as Worker code sees it: the real drivers, inside workerd,
// through the global setup's gateway to the machine's real PostgreSQL and Redis.
//   Neon HTTP (/sql): neon() type round trips, parameters, batches, errors, database selection.
//   Neon WebSocket relay (/v1): Pool queries and an interactive transaction.
//   Upstash REST (/redis): @upstash/redis/cloudflare commands, pipeline, multi-exec, base64
//   responses; @upstash/ratelimit windows with an exact allow/deny sequence.
// Everything lives in a scratch database and under a unique Redis prefix, both removed at the end.
import { env } from 'cloudflare:test';
import { neon, neonConfig, Pool } from '@neondatabase/serverless';
import { Ratelimit } from '@upstash/ratelimit';
import { Redis } from '@upstash/redis/cloudflare';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkArrayMode, checkConcurrentQueries, checkFailedBatch, checkSqlError } from '../shared/neon-checks';
import { checkCollections, checkStringsAndCounters } from '../shared/upstash-checks';
import { caught } from '../shared/caught';

const RUN = crypto.randomUUID().replaceAll('-', '').slice(0, 12);
const SCRATCH_DB = `gw_${RUN}`;
const P = `gwtest:${RUN}:`; // Redis key prefix

const withDatabase = (url: string, name: string) => url.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);

const admin = () => neon(env.ADMIN_DATABASE_URL);
let scratchUrl: string;

/**
 * A Pool on the scratch database whose errors are collected, not thrown. When Postgres closes a
 * connection (after the client's Terminate, on pool.end()), the gateway closes the WebSocket with
 * a clean close handshake, and workerd then also fires an "error" event ("Network connection
 * lost") on it; the driver passes that to the pool as an idle client's error, which would be an
 * uncaught exception without a listener. Errors before end() are real and fail the test.
 */
function scratchPool() {
  const pool = new Pool({ connectionString: scratchUrl, max: 2 });
  const errors: Error[] = [];
  let ending = false;
  pool.on('error', (err: Error) => {
    if (!ending) errors.push(err);
  });
  return {
    pool,
    /** Errors the pool reported so far: none expected while it is in use. */
    errors,
    async end() {
      ending = true;
      await pool.end();
    },
  };
}

beforeAll(async () => {
  // What a Worker sets (workerd has WebSocket built in, so no webSocketConstructor).
  neonConfig.fetchEndpoint = env.NEON_HTTP_ENDPOINT;
  neonConfig.wsProxy = () => env.NEON_WS_PROXY;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineConnect = false;
  await admin().query(`CREATE DATABASE ${SCRATCH_DB}`);
  scratchUrl = withDatabase(env.ADMIN_DATABASE_URL, SCRATCH_DB);
});

afterAll(async () => {
  await admin().query(`DROP DATABASE IF EXISTS ${SCRATCH_DB} WITH (FORCE)`);
  const redis = Redis.fromEnv(env);
  const keys = await redis.keys(`${P}*`);
  if (keys.length) await redis.del(...keys);
});

describe('neon() over the HTTP endpoint', () => {
  it('round-trips column types as the driver parses them', async () => {
    const sql = neon(scratchUrl);
    const [r] = await sql`select '2024-05-06T07:08:09.123Z'::timestamptz as ts, 12.345::numeric as n,
      9007199254740993::bigint as b, array[1,2,3]::int[] as ia, array['a','b c', null]::text[] as ta,
      '{"x":[1,{"y":"z"}]}'::jsonb as j, null::text as nul, '\\xdeadbeef'::bytea as by, true as bo,
      false as bf, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid as u, 'héllo ✓' as t`;
    expect(r.ts).toBeInstanceOf(Date);
    expect((r.ts as Date).toISOString()).toBe('2024-05-06T07:08:09.123Z');
    expect(r.n).toBe('12.345');
    expect(r.b).toBe('9007199254740993'); // beyond 2^53: text, not a rounded number
    expect(r.ia).toEqual([1, 2, 3]);
    expect(r.ta).toEqual(['a', 'b c', null]);
    expect(r.j).toEqual({ x: [1, { y: 'z' }] });
    expect(r.nul).toBeNull();
    expect(r.by).toBeInstanceOf(Uint8Array);
    expect([...(r.by as Uint8Array)]).toEqual([0xde, 0xad, 0xbe, 0xef]);
    expect(r.bo).toBe(true);
    expect(r.bf).toBe(false);
    expect(r.u).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    expect(r.t).toBe('héllo ✓');
  });

  it('round-trips parameters', async () => {
    const sql = neon(scratchUrl);
    const d = new Date('2020-01-02T03:04:05.678Z');
    const [r] = await sql`select ${d}::timestamptz as d, ${new Uint8Array([1, 2, 255])}::bytea as by,
      ${[4, 5]}::int[] as arr, ${JSON.stringify({ k: 'v' })}::jsonb as j, ${null}::int as nul, ${'o\'q"'} as s,
      ${'9007199254740993'}::bigint as big, ${true}::boolean as bo`;
    expect((r.d as Date).toISOString()).toBe(d.toISOString());
    expect([...(r.by as Uint8Array)]).toEqual([1, 2, 255]);
    expect(r.arr).toEqual([4, 5]);
    expect(r.j).toEqual({ k: 'v' });
    expect(r.nul).toBeNull();
    expect(r.s).toBe('o\'q"');
    expect(r.big).toBe('9007199254740993');
    expect(r.bo).toBe(true);
  });

  it('supports arrayMode and fullResults', () => checkArrayMode(scratchUrl));

  it('a SQL error is a NeonDbError with the Postgres code', () => checkSqlError(scratchUrl));

  it('a transaction batch that fails midway leaves nothing behind', () => checkFailedBatch(scratchUrl));

  it('answers concurrent queries, errors mixed in, each with its own result', () => checkConcurrentQueries(scratchUrl));

  it('the database in the connection string picks the database', async () => {
    expect(await neon(scratchUrl)`select current_database() as db`).toEqual([{ db: SCRATCH_DB }]);
    const missing = await caught(neon(withDatabase(env.ADMIN_DATABASE_URL, `gw_missing_${RUN}`))`select 1`);
    expect(missing.code).toBe('3D000');
  });
});

describe('Pool over the WebSocket relay', () => {
  it('runs queries with parameters and parsed types', async () => {
    const { pool, errors, end } = scratchPool();
    try {
      const { rows } = await pool.query('select $1::int + 1 as n, now() as t, $2::jsonb as j, $3::bytea as by', [
        41,
        '{"a":1}',
        new Uint8Array([9, 8]),
      ]);
      expect(rows[0].n).toBe(42);
      expect(rows[0].t).toBeInstanceOf(Date);
      expect(rows[0].j).toEqual({ a: 1 });
      expect([...(rows[0].by as Uint8Array)]).toEqual([9, 8]);
      const parallel = await Promise.all([1, 2, 3, 4].map((i) => pool.query('select $1::int as i', [i])));
      expect(parallel.map((r) => r.rows[0].i)).toEqual([1, 2, 3, 4]);
      const err = await caught(pool.query('select * from gw_no_such_table'));
      expect(err.code).toBe('42P01');
      expect(errors).toEqual([]);
    } finally {
      await end();
    }
  });

  it('an interactive transaction: rollback discards, commit keeps', async () => {
    const sql = neon(scratchUrl);
    await sql.query('create table ws_t (id int primary key, note text)');
    const { pool, errors, end } = scratchPool();
    try {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`insert into ws_t values (100, 'tx')`);
        const inside = await client.query('select note from ws_t where id = 100');
        expect(inside.rows).toEqual([{ note: 'tx' }]);
        // Not visible outside the open transaction.
        expect(await sql`select count(*)::int as c from ws_t`).toEqual([{ c: 0 }]);
        await client.query('ROLLBACK');
        await client.query('BEGIN');
        await client.query('insert into ws_t values ($1, $2)', [101, 'kept']);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      expect(await sql`select id, note from ws_t order by id`).toEqual([{ id: 101, note: 'kept' }]);
      expect(errors).toEqual([]);
    } finally {
      await end();
    }
  });
});

describe('@upstash/redis/cloudflare over the REST endpoint', () => {
  const redis = () => Redis.fromEnv(env); // base64 responses: the client's default
  const plain = () => new Redis({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN, responseEncoding: false });

  it('strings, JSON values, counters, expiry', () => checkStringsAndCounters(redis(), P));

  it('hashes, sets, sorted sets, keys, scan', () => checkCollections(redis(), P));

  it('pipeline: results in order, errors per command', async () => {
    const r = redis();
    expect(await r.pipeline().set(`${P}pa`, 'A').incr(`${P}pn`).get(`${P}pa`).hset(`${P}ph`, { k: 'v' }).exec()).toEqual(['OK', 1, 'A', 1]);
    const out = await r.pipeline().incr(`${P}pa`).get(`${P}pa`).exec({ keepErrors: true });
    expect(String(out[0].error)).toMatch(/not an integer/);
    expect(out[1]).toEqual({ result: 'A', error: undefined });
    await expect(r.pipeline().incr(`${P}pa`).get(`${P}pa`).exec()).rejects.toThrow(/not an integer/);
  });

  it('multi-exec: atomic transaction results', async () => {
    const r = redis();
    expect(await r.multi().incr(`${P}mn`).incr(`${P}mn`).get(`${P}mn`).set(`${P}ms`, 'ü').get(`${P}ms`).exec()).toEqual([
      1,
      2,
      2,
      'OK',
      'ü',
    ]);
    // A runtime error fails only its command; the others ran (Redis' EXEC semantics).
    const out = await r.multi().set(`${P}mx`, 'text').incr(`${P}mx`).get(`${P}mx`).exec({ keepErrors: true });
    expect(out[0].result).toBe('OK');
    expect(String(out[1].error)).toMatch(/not an integer/);
    expect(out[2].result).toBe('text');
  });

  it('base64 response encoding: the client decodes; the wire carries base64', async () => {
    const r = redis();
    const value = 'ü ✓ OK \u0000 end';
    await r.set(`${P}b`, value);
    expect(await r.get(`${P}b`)).toBe(value);
    expect(await plain().get(`${P}b`)).toBe(value);
    expect(await r.mget(`${P}b`, `${P}missing`)).toEqual([value, null]);

    const raw = (body: unknown, headers: Record<string, string> = {}, path = '') =>
      fetch(`${env.UPSTASH_REDIS_REST_URL}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.UPSTASH_REDIS_REST_TOKEN}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as unknown }));
    const b64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)));
    const b64h = { 'upstash-encoding': 'base64' };

    expect(await raw(['MGET', `${P}b`, `${P}missing`], b64h)).toEqual({ status: 200, body: { result: [b64(value), null] } });
    expect(await raw(['GET', `${P}b`])).toEqual({ status: 200, body: { result: value } });
    expect(await raw(['SET', `${P}c`, 1], b64h)).toEqual({ status: 200, body: { result: 'OK' } }); // "OK" stays plain
    expect(await raw(['PING'], b64h)).toEqual({ status: 200, body: { result: b64('PONG') } });
    expect(await raw(['INCR', `${P}c`], b64h)).toEqual({ status: 200, body: { result: 2 } }); // numbers stay numbers
    expect(
      await raw(
        [
          ['GET', `${P}c`],
          ['INCR', `${P}b`],
        ],
        b64h,
        '/pipeline',
      ),
    ).toEqual({
      status: 200,
      body: [{ result: b64('2') }, { error: 'ERR value is not an integer or out of range' }],
    });
    expect(
      await raw(
        [
          ['INCR', `${P}c`],
          ['GET', `${P}c`],
        ],
        b64h,
        '/multi-exec',
      ),
    ).toEqual({
      status: 200,
      body: [{ result: 3 }, { result: b64('3') }],
    });
    const nos = await raw(['EVALSHA', 'ffffffffffffffffffffffffffffffffffffffff', 0]);
    expect(nos).toEqual({ status: 400, body: { error: 'NOSCRIPT No matching script. Please use EVAL.' } });
    expect((await raw(['MULTI'])).status).toBe(400);
  });

  it('a wrong token is 401, and the client rejects', async () => {
    const res = await fetch(env.UPSTASH_REDIS_REST_URL, { method: 'POST', body: '["PING"]', headers: { authorization: 'Bearer wrong' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toHaveProperty('error');
    const err = await caught(new Redis({ url: env.UPSTASH_REDIS_REST_URL, token: 'wrong', retry: false }).get('x'));
    expect(err).toBeInstanceOf(Error);
  });
});

describe('@upstash/ratelimit', () => {
  // A fixed clock 1 s into a 10 s window: the sequence cannot straddle a window boundary.
  // Only the limiter's idea of "now" is mocked; Redis expiries still run on real time.
  const WINDOW = 10_000;
  const windowStart = Math.floor(Date.now() / WINDOW) * WINDOW;

  for (const [name, make] of [
    ['slidingWindow', () => Ratelimit.slidingWindow(3, '10 s')],
    ['fixedWindow', () => Ratelimit.fixedWindow(3, '10 s')],
    ['tokenBucket', () => Ratelimit.tokenBucket(1, '10 s', 3)],
  ] as const) {
    it(`${name}(3, 10 s): 3 allowed with remaining 2, 1, 0, then denied`, async () => {
      const now = vi.spyOn(Date, 'now').mockReturnValue(windowStart + 1_000);
      try {
        const rl = new Ratelimit({ redis: Redis.fromEnv(env), limiter: make(), prefix: `${P}rl:${name}`, ephemeralCache: false });
        const seq = [];
        for (let i = 0; i < 5; i++) seq.push(await rl.limit('user-1'));
        expect(seq.map((r) => r.success)).toEqual([true, true, true, false, false]);
        expect(seq.map((r) => r.remaining)).toEqual([2, 1, 0, 0, 0]);
        expect(seq.every((r) => r.limit === 3 && r.reason === undefined)).toBe(true);
        if (name !== 'tokenBucket') expect(seq.map((r) => r.reset)).toEqual(Array(5).fill(windowStart + WINDOW));
        expect((await rl.getRemaining('user-1')).remaining).toBe(0);
        expect((await rl.limit('user-2')).remaining).toBe(2); // identifiers are independent
        await rl.resetUsedTokens('user-1');
        expect((await rl.limit('user-1')).success).toBe(true);
        // The next window (the refill, for the bucket) allows again.
        now.mockReturnValue(windowStart + 1_000 + WINDOW);
        const later = await rl.limit('user-2');
        expect(later.success).toBe(true);
      } finally {
        now.mockRestore();
      }
    });
  }
});
