// Neon driver checks through the gateway: HTTP queries (neon()), batches, errors, and the
// WebSocket Pool with an interactive transaction.
import { neon, neonConfig, NeonDbError, Pool } from '@neondatabase/serverless';
import pg from 'pg';
import ws from 'ws';
import type { Gateway } from '../../scripts/gateway/index';
import { assert, check, rejects } from './harness';

/** The settings a Worker needs too (minus webSocketConstructor, which workerd has built in). */
export function configureNeon(gw: Gateway): void {
  neonConfig.fetchEndpoint = gw.neonHttpUrl;
  neonConfig.wsProxy = () => gw.neonWsProxy;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineConnect = false;
  neonConfig.webSocketConstructor = ws;
}

export async function neonChecks(gw: Gateway, dbUrl: string, adminUrl?: string): Promise<void> {
  configureNeon(gw);
  const sql = neon(dbUrl);
  const table = `gw_smoke_${process.pid}_${gw.backend.postgres}`;

  await check('neon http: type round trips', async () => {
    const [r] = await sql`select '2024-05-06T07:08:09.123Z'::timestamptz as ts, 12.345::numeric as n,
      9007199254740993::bigint as b, array[1,2,3]::int[] as ia, array['a','b c', null]::text[] as ta,
      '{"x":[1,{"y":"z"}]}'::jsonb as j, null::text as nul, '\\xdeadbeef'::bytea as by, true as bo,
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid as u, 'héllo ✓' as t`;
    assert.ok(r.ts instanceof Date);
    assert.equal((r.ts as Date).toISOString(), '2024-05-06T07:08:09.123Z');
    assert.equal(r.n, '12.345');
    assert.equal(r.b, '9007199254740993');
    assert.deepEqual(r.ia, [1, 2, 3]);
    assert.deepEqual(r.ta, ['a', 'b c', null]);
    assert.deepEqual(r.j, { x: [1, { y: 'z' }] });
    assert.equal(r.nul, null);
    assert.deepEqual([...(r.by as Uint8Array)], [0xde, 0xad, 0xbe, 0xef]);
    assert.equal(r.bo, true);
    assert.equal(r.u, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    assert.equal(r.t, 'héllo ✓');
  });

  await check('neon http: parameters round trip', async () => {
    const d = new Date('2020-01-02T03:04:05.678Z');
    const [r] = await sql`select ${d}::timestamptz as d, ${Buffer.from([1, 2, 255])}::bytea as by,
      ${[4, 5]}::int[] as arr, ${JSON.stringify({ k: 'v' })}::jsonb as j, ${null}::int as nul, ${'o\'q"'} as s`;
    assert.equal((r.d as Date).toISOString(), d.toISOString());
    assert.deepEqual([...(r.by as Uint8Array)], [1, 2, 255]);
    assert.deepEqual(r.arr, [4, 5]);
    assert.deepEqual(r.j, { k: 'v' });
    assert.equal(r.nul, null);
    assert.equal(r.s, 'o\'q"');
  });

  await check('neon http: arrayMode and fullResults', async () => {
    const full = await sql.query('select 1::int as a, 2::int as a', [], { fullResults: true, arrayMode: true });
    assert.deepEqual(full.rows, [[1, 2]]);
    assert.equal(full.command, 'SELECT');
    assert.equal(full.rowCount, 1);
    assert.deepEqual(full.fields.map((f) => [f.name, f.dataTypeID]), [['a', 23], ['a', 23]]);
  });

  await check('neon http: SQL error surfaces as NeonDbError with code', async () => {
    const err = await rejects(sql`select * from gw_no_such_table`);
    assert.ok(err instanceof NeonDbError, `got ${err?.constructor?.name}`);
    assert.equal(err.code, '42P01');
    assert.match(err.message, /gw_no_such_table/);
    assert.equal(err.severity, 'ERROR');
  });

  await check('neon http: failing transaction batch leaves nothing behind', async () => {
    await sql.query(`drop table if exists ${table}`);
    await sql.query(`create table ${table} (id int primary key, note text)`);
    const err = await rejects(sql.transaction([
      sql.query(`insert into ${table} values (1, 'a')`),
      sql.query(`insert into ${table} values (2, 'b')`),
      sql.query(`insert into ${table} values (1, 'dup')`),
    ]));
    assert.equal(err.code, '23505');
    const [{ count }] = await sql.query(`select count(*)::int as count from ${table}`);
    assert.equal(count, 0);
  });

  await check('neon http: transaction batch with options commits', async () => {
    const results = await sql.transaction(
      (tx) => [tx.query(`insert into ${table} values ($1, $2) returning id`, [7, 'x']), tx`select count(*)::int as c from ${sql.unsafe(table)}`],
      { isolationLevel: 'Serializable', readOnly: false, deferrable: false },
    );
    assert.deepEqual(results, [[{ id: 7 }], [{ c: 1 }]]);
    const ro = await rejects(sql.transaction([sql.query(`insert into ${table} values (8, 'y')`)], { readOnly: true }));
    assert.equal(ro.code, '25006'); // read-only transaction
  });

  await check('neon http: 20 concurrent queries, with errors mixed in', async () => {
    const runs = Array.from({ length: 20 }, (_, i) =>
      i % 5 === 4 ? sql`select 1/0`.then(() => 'no error', (e: NeonDbError) => e.code) : sql`select ${i}::int as i, pg_sleep(0.02)`.then((r) => r[0].i),
    );
    const out = await Promise.all(runs);
    out.forEach((v, i) => assert.equal(v, i % 5 === 4 ? '22012' : i));
  });

  await check('ws pool: query and interactive transaction', async () => {
    const pool = new Pool({ connectionString: dbUrl });
    try {
      const { rows } = await pool.query('select $1::int + 1 as n, now() as t, $2::jsonb as j', [41, '{"a":1}']);
      assert.equal(rows[0].n, 42);
      assert.ok(rows[0].t instanceof Date);
      assert.deepEqual(rows[0].j, { a: 1 });
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`insert into ${table} values (100, 'tx')`);
        const inside = await client.query(`select note from ${table} where id = 100`);
        assert.equal(inside.rows[0].note, 'tx');
        await client.query('ROLLBACK');
        await client.query('BEGIN');
        await client.query(`insert into ${table} values (101, 'kept')`);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      const after = await sql.query(`select id from ${table} where id >= 100 order by id`);
      assert.deepEqual(after, [{ id: 101 }]);
      const parallel = await Promise.all([1, 2, 3, 4].map((i) => pool.query('select $1::int as i', [i])));
      assert.deepEqual(parallel.map((r) => r.rows[0].i), [1, 2, 3, 4]);
    } finally {
      await pool.end();
    }
  });

  await check('neon http: table cleanup', async () => {
    await sql.query(`drop table ${table}`);
  });

  if (!adminUrl) return;
  await check('neon http: database name from the connection string picks the database', async () => {
    const name = `gw_smoke_db_${process.pid}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(`drop database if exists ${name}`);
      await admin.query(`create database ${name}`);
      const other = neon(dbUrl.replace(/\/[^/?]+(\?|$)/, `/${name}$1`));
      const [r] = await other`select current_database() as db`;
      assert.equal(r.db, name);
      const missing = neon(dbUrl.replace(/\/[^/?]+(\?|$)/, `/gw_no_such_db$1`));
      assert.equal((await rejects(missing`select 1`)).code, '3D000');
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
}
