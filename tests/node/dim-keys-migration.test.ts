// drizzle/0020_dim_key_ids on a database loaded before it: dim_hours and dim_days keep every row,
// now naming their keys by number (dim_keys), and ingest goes on keeping them exact.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupsDiffer } from '../../scripts/bench/rollups-exact';
import { migrate } from '../../scripts/lib/migrations';
import { ingestAll, templateCopy } from './template-copy';
import { dataset } from '../fixtures/oracle';

let db: Awaited<ReturnType<typeof templateCopy>>;
let client: pg.Client;

const SERIES = `
  SELECT 'hour' AS t, k.kind, k.key, h.country, h.language, h.hour::text AS at, h.impressions::float8, h.position_sum
  FROM dim_hours h JOIN dim_keys k ON k.id = h.key_id
  UNION ALL SELECT 'day', k.kind, k.key, d.country, d.language, d.day::text, d.impressions::float8, d.position_sum
  FROM dim_days d JOIN dim_keys k ON k.id = d.key_id
  ORDER BY 1, 2, 3, 4, 5, 6`;

const KEYS = `
  SELECT conrelid::regclass::text AS t, conname, pg_get_constraintdef(oid) AS definition FROM pg_constraint
  WHERE conrelid IN ('dim_hours'::regclass, 'dim_days'::regclass, 'dim_keys'::regclass) ORDER BY 1, 2`;

/** dim_hours and dim_days as 0019 left them: the key's kind and text in every row. */
const BEFORE_0020 = (['hours', 'days'] as const).flatMap((unit) => {
  const at = unit === 'hours' ? 'hour' : 'day';
  const key =
    unit === 'hours'
      ? 'CONSTRAINT dim_hours_pk PRIMARY KEY (key, kind, country, language, hour)'
      : 'CONSTRAINT dim_days_kind_key_country_language_day_pk PRIMARY KEY (kind, key, country, language, day)';
  return [
    `CREATE TABLE dim_${unit}_0019 (kind text COLLATE "C" NOT NULL, key text COLLATE "C" NOT NULL, country text COLLATE "C" NOT NULL,
       language text COLLATE "C" NOT NULL, ${at} ${unit === 'hours' ? 'timestamptz' : 'date'} NOT NULL, impressions bigint NOT NULL,
       position_sum double precision NOT NULL)`,
    `INSERT INTO dim_${unit}_0019 SELECT k.kind, k.key, x.country, x.language, x.${at}, x.impressions, x.position_sum
     FROM dim_${unit} x JOIN dim_keys k ON k.id = x.key_id`,
    `DROP TABLE dim_${unit}`,
    `ALTER TABLE dim_${unit}_0019 RENAME TO dim_${unit}`,
    `ALTER TABLE dim_${unit} ADD ${key}`,
  ];
});

beforeAll(async () => {
  db = await templateCopy('dim_keys_migration');
  client = db.client;
});

afterAll(() => db.drop());

describe('0020_dim_key_ids', () => {
  it('numbers the keys of an existing database and keeps every row of dim_hours and dim_days', async () => {
    const [first, ...rest] = dataset();
    await ingestAll(client, first);
    const kept = (await client.query(SERIES)).rows;
    expect(kept.length).toBeGreaterThan(100);
    const migrated = (await client.query(KEYS)).rows;
    // 0024 partitions the table that 0020 writes: both run again.
    const tags = ['0020_dim_key_ids', '0024_dim_hours_by_day'];
    for (const statement of [...BEFORE_0020, 'DROP TABLE dim_keys', `DELETE FROM schema_migrations WHERE tag IN ('${tags.join("', '")}')`])
      await client.query(statement);
    expect(await migrate(client)).toEqual(tags);
    expect((await client.query(SERIES)).rows).toEqual(kept);
    expect((await client.query(KEYS)).rows).toEqual(migrated);
    // Later batches number their new keys after the migrated ones, and the roll-ups stay exact.
    for (const batch of rest) await ingestAll(client, batch);
    expect(await rollupsDiffer(client)).toEqual([]);
  }, 120_000);
});
