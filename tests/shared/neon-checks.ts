// neon() over a gateway's HTTP SQL endpoint, shared by the workerd suite (real PostgreSQL) and the
// Node suite (embedded PGlite): the same driver calls must give the same answers on both backends.
import { neon, NeonDbError } from '@neondatabase/serverless';
import { expect } from 'vitest';
import { caught } from './caught';

/** Supports arrayMode and fullResults. */
export async function checkArrayMode(url: string): Promise<void> {
  const full = await neon(url).query('select 1::int as a, 2::int as a', [], { fullResults: true, arrayMode: true });
  expect(full.rows).toEqual([[1, 2]]);
  expect(full.command).toBe('SELECT');
  expect(full.rowCount).toBe(1);
  expect(full.fields.map((f) => [f.name, f.dataTypeID])).toEqual([
    ['a', 23],
    ['a', 23],
  ]);
}

/** A SQL error is a NeonDbError with the Postgres code. */
export async function checkSqlError(url: string): Promise<void> {
  const err = await caught(neon(url)`select * from gw_no_such_table`);
  expect(err).toBeInstanceOf(NeonDbError);
  expect(err.code).toBe('42P01');
  expect(err.severity).toBe('ERROR');
  expect(err.message).toMatch(/gw_no_such_table/);
}

/** A transaction batch that fails midway leaves nothing behind. */
export async function checkFailedBatch(url: string): Promise<void> {
  const sql = neon(url);
  await sql.query('create table batch_t (id int primary key, note text)');
  const err = await caught(
    sql.transaction([
      sql.query(`insert into batch_t values (1, 'a')`),
      sql.query(`insert into batch_t values (2, 'b')`),
      sql.query(`insert into batch_t values (1, 'dup')`),
      sql.query(`insert into batch_t values (3, 'never')`),
    ]),
  );
  expect(err).toBeInstanceOf(NeonDbError);
  expect(err.code).toBe('23505');
  expect(await sql`select count(*)::int as c from batch_t`).toEqual([{ c: 0 }]);

  // The same connection pool is still usable, and a good batch commits with its options.
  const results = await sql.transaction(
    (tx) => [tx.query('insert into batch_t values ($1, $2) returning id', [7, 'x']), tx`select count(*)::int as c from batch_t`],
    { isolationLevel: 'Serializable', readOnly: false, deferrable: false },
  );
  expect(results).toEqual([[{ id: 7 }], [{ c: 1 }]]);
  const ro = await caught(sql.transaction([sql.query(`insert into batch_t values (8, 'y')`)], { readOnly: true }));
  expect(ro.code).toBe('25006'); // read-only transaction
  expect(await sql`select id from batch_t order by id`).toEqual([{ id: 7 }]);
}

/** Answers concurrent queries, errors mixed in, each with its own result. */
export async function checkConcurrentQueries(url: string): Promise<void> {
  const sql = neon(url);
  const out = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      i % 4 === 3
        ? sql`select 1/0`.then(
            () => 'no error',
            (e: NeonDbError) => e.code,
          )
        : sql`select ${i}::int as i`.then((r) => r[0].i),
    ),
  );
  expect(out).toEqual(Array.from({ length: 12 }, (_, i) => (i % 4 === 3 ? '22012' : i)));
}
