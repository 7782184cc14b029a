// drizzle/0024_dim_hours_by_day on a database loaded before it: dim_hours keeps every row, now in one
// partition per UTC day of observations, and ingest goes on keeping it exact, creating the partition
// of a day it had none for (a late line before every other day, a line of a new day).
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupsDiffer } from '../../scripts/bench/rollups-exact';
import { migrate } from '../../scripts/lib/migrations';
import { ingestAll, templateCopy } from './template-copy';
import { dataset, hourIso } from '../fixtures/oracle';

let db: Awaited<ReturnType<typeof templateCopy>>;
let client: pg.Client;

const SERIES = `SELECT key_id, country, language, hour::text AS hour, impressions::float8, position_sum FROM dim_hours ORDER BY 1, 2, 3, 4`;

/** dim_hours' partitions by name. */
const PARTITIONS = `
  SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
  WHERE i.inhparent = 'dim_hours'::regclass ORDER BY 1`;

/** The days from the first observation's to the last one's, as partition names. */
const observationDays = async () => {
  const { rows } = await client.query<{ name: string }>(
    `SELECT 'dim_hours_' || to_char(d, 'YYYYMMDD') AS name FROM (SELECT generate_series((min(hour) AT TIME ZONE 'UTC')::date,
       (max(hour) AT TIME ZONE 'UTC')::date, interval '1 day')::date AS d FROM observations) x ORDER BY 1`,
  );
  return rows.map((r) => r.name);
};

/** dim_hours as 0020 left it: one table, and no dim_hours_days(). */
const BEFORE_0024 = [
  'CREATE TABLE dim_hours_0020 (LIKE dim_hours)',
  'INSERT INTO dim_hours_0020 SELECT * FROM dim_hours',
  'DROP TABLE dim_hours',
  'ALTER TABLE dim_hours_0020 RENAME TO dim_hours',
  'ALTER TABLE dim_hours ADD CONSTRAINT dim_hours_pk PRIMARY KEY (key_id, country, language, hour)',
  'DROP FUNCTION dim_hours_days(date[])',
  `DELETE FROM schema_migrations WHERE tag = '0024_dim_hours_by_day'`,
];

beforeAll(async () => {
  db = await templateCopy('dim_hours_migration');
  client = db.client;
});

afterAll(() => db.drop());

describe('0024_dim_hours_by_day', () => {
  it('moves every row of an existing dim_hours into one partition per day; later batches create the days they bring', async () => {
    const [first, ...rest] = dataset();
    await ingestAll(client, first);
    const kept = (await client.query(SERIES)).rows;
    expect(kept.length).toBeGreaterThan(100);
    for (const statement of BEFORE_0024) await client.query(statement);
    expect((await client.query(`SELECT relkind FROM pg_class WHERE relname = 'dim_hours'`)).rows).toEqual([{ relkind: 'r' }]);

    expect(await migrate(client)).toEqual(['0024_dim_hours_by_day']);
    expect((await client.query(`SELECT relkind FROM pg_class WHERE relname = 'dim_hours'`)).rows).toEqual([{ relkind: 'p' }]);
    expect((await client.query(SERIES)).rows).toEqual(kept);
    const partitions = (await client.query<{ name: string }>(PARTITIONS)).rows;
    expect(partitions.map((p) => p.name)).toEqual(await observationDays());
    // Every row sits in its own day's partition: the bounds route each hour to the day that names it.
    const misplaced = await client.query(
      `SELECT count(*)::int AS n FROM dim_hours h WHERE h.tableoid::regclass::text <> 'dim_hours_' || to_char(h.hour AT TIME ZONE 'UTC', 'YYYYMMDD')`,
    );
    expect(misplaced.rows).toEqual([{ n: 0 }]);

    // The other batches, then a late line three days before every other hour and one of a day after them.
    const observation = first.find((r) => (r as { type: string }).type === 'observation') as Record<string, unknown>;
    for (const batch of rest) await ingestAll(client, batch);
    await ingestAll(client, [
      { ...observation, hour: hourIso(-72), impressions: 9 },
      { ...observation, hour: hourIso(12 * 24 + 30), impressions: 4 },
    ]);
    const after = (await client.query<{ name: string }>(PARTITIONS)).rows.map((p) => p.name);
    expect(after).toEqual(expect.arrayContaining(['dim_hours_20261029', 'dim_hours_20261114']));
    expect(after.length).toBe(partitions.length + 2);
    expect(await rollupsDiffer(client)).toEqual([]);
  }, 120_000);
});
