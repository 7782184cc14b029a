// The activity hulls' migrations on a database loaded before them: drizzle/0023_activity_frontier (hulls
// open at the frontier) and drizzle/0017_activity_markets (the category kind's hulls per market). Their
// backfill (the activity hulls rebuilt, scripts/lib/migrations.ts BACKFILLS) gives exactly the hulls that
// ingest keeps.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupsDiffer } from '../../scripts/bench/rollups-exact';
import { migrate } from '../../scripts/lib/migrations';
import { ingestAll, templateCopy } from './template-copy';
import { dataset } from '../fixtures/oracle';

let db: Awaited<ReturnType<typeof templateCopy>>;
let client: pg.Client;
let kept: unknown[];

const HULLS = `
  SELECT 'hull' AS t, kind, key, market, unit, item, first_hour::text AS a, end_hour::text AS b FROM dim_activity
  UNION ALL SELECT 'gap', kind, key, market, unit, item, gap_start::text, gap_end::text FROM dim_activity_gaps
  UNION ALL SELECT 'hour', kind, key, market, unit, hour::text, starts::text, ends::text FROM dim_activity_hours
  UNION ALL SELECT 'day', kind, key, market, unit, day::text, starts::text, ends::text FROM dim_activity_days
  UNION ALL SELECT 'open', kind, key, market, unit, item, first_hour::text, '' FROM dim_activity_open
  UNION ALL SELECT 'frontier', '', '', '', '', '', hour::text, '' FROM activity_frontier
  ORDER BY 1, 2, 3, 4, 5, 6, 7`;

/** The marks of the open hulls' last hour, per hour or day, added back as 0022 kept them. */
const END_MARKS = (into: 'hours' | 'days') => {
  const at = into === 'hours' ? 'f.hour' : `(f.hour AT TIME ZONE 'UTC')::date`;
  return `INSERT INTO dim_activity_${into} (kind, key, market, unit, ${into === 'hours' ? 'hour' : 'day'}, starts, ends)
    SELECT kind, key, market, unit, ${at}, 0, count(*) FROM dim_activity CROSS JOIN activity_frontier f WHERE end_hour IS NULL
    GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT (kind, key, market, unit, ${into === 'hours' ? 'hour' : 'day'}) DO UPDATE SET ends = dim_activity_${into}.ends + excluded.ends`;
};

/** The activity tables as 0022 left them: every hull closed, with its end mark, and no frontier. */
const BEFORE_0023 = [
  END_MARKS('hours'),
  END_MARKS('days'),
  `UPDATE dim_activity SET end_hour = f.hour + interval '1 hour' FROM activity_frontier f WHERE end_hour IS NULL`,
  'DROP TABLE dim_activity_open',
  'ALTER TABLE dim_activity ALTER COLUMN end_hour SET NOT NULL',
  'DROP TABLE activity_frontier',
  `DELETE FROM schema_migrations WHERE tag = '0023_activity_frontier'`,
];

/** The activity tables as 0016 left them: no market column, their old keys. */
const BEFORE_0017 = [
  `DELETE FROM dim_activity WHERE market <> '*'`,
  `DELETE FROM dim_activity_gaps WHERE market <> '*'`,
  `DELETE FROM dim_activity_hours WHERE market <> '*'`,
  `DELETE FROM dim_activity_days WHERE market <> '*'`,
  'ALTER TABLE dim_activity DROP COLUMN market',
  'ALTER TABLE dim_activity ADD CONSTRAINT dim_activity_kind_key_unit_item_pk PRIMARY KEY (kind, key, unit, item)',
  'ALTER TABLE dim_activity_gaps DROP COLUMN market',
  'ALTER TABLE dim_activity_gaps ADD CONSTRAINT dim_activity_gaps_kind_key_unit_item_gap_start_pk PRIMARY KEY (kind, key, unit, item, gap_start)',
  'CREATE INDEX dim_activity_gaps_end_idx ON dim_activity_gaps (kind, key, unit, gap_end)',
  'ALTER TABLE dim_activity_hours DROP COLUMN market',
  'ALTER TABLE dim_activity_hours ADD CONSTRAINT dim_activity_hours_kind_key_unit_hour_pk PRIMARY KEY (kind, key, unit, hour) INCLUDE (starts, ends)',
  'ALTER TABLE dim_activity_days DROP COLUMN market',
  'ALTER TABLE dim_activity_days ADD CONSTRAINT dim_activity_days_kind_key_unit_day_pk PRIMARY KEY (kind, key, unit, day) INCLUDE (starts, ends)',
  `DELETE FROM schema_migrations WHERE tag = '0017_activity_markets'`,
];

beforeAll(async () => {
  db = await templateCopy('activity_migrations');
  client = db.client;
  for (const batch of dataset()) await ingestAll(client, batch);
  kept = (await client.query(HULLS)).rows;
}, 120_000);

afterAll(() => db.drop());

describe('the activity migrations', () => {
  it('0023 opens the hulls that end at the frontier, exactly as ingest keeps them', async () => {
    const open = await client.query('SELECT 1 FROM dim_activity WHERE end_hour IS NULL');
    expect(open.rowCount, 'the data set leaves hulls open').toBeGreaterThan(0);
    for (const statement of BEFORE_0023) await client.query(statement);
    expect((await client.query('SELECT 1 FROM dim_activity WHERE end_hour IS NULL')).rowCount).toBe(0);
    expect(await migrate(client)).toEqual(['0023_activity_frontier']);
    expect((await client.query(HULLS)).rows).toEqual(kept);
    expect(await rollupsDiffer(client)).toEqual([]);
  }, 120_000);

  it('0017 and 0023 build the category hulls per market of an existing database, exactly as ingest keeps them', async () => {
    const markets = new Set(
      (kept as { t: string; kind: string; market: string }[]).filter((r) => r.kind === 'category').map((r) => r.market),
    );
    expect([...markets].sort()).toEqual(['*', 'DE', 'GB', 'US']);
    for (const statement of [...BEFORE_0023, ...BEFORE_0017]) await client.query(statement);
    expect(await migrate(client)).toEqual(['0017_activity_markets', '0023_activity_frontier']);
    expect((await client.query(HULLS)).rows).toEqual(kept);
    expect(await rollupsDiffer(client)).toEqual([]);
  }, 120_000);
});
