// drizzle/0017_activity_markets on a database loaded before it: the migration's backfill (the activity
// hulls rebuilt, scripts/lib/migrations.ts BACKFILLS) gives exactly the hulls that ingest keeps.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupsDiffer } from '../../scripts/bench/rollups-exact';
import { migrate } from '../../scripts/lib/migrations';
import { ingestAll, templateCopy } from './template-copy';
import { dataset } from '../fixtures/oracle';

let db: Awaited<ReturnType<typeof templateCopy>>;
let client: pg.Client;

const HULLS = `
  SELECT 'hull' AS t, kind, key, market, unit, item, first_hour::text AS a, end_hour::text AS b FROM dim_activity
  UNION ALL SELECT 'gap', kind, key, market, unit, item, gap_start::text, gap_end::text FROM dim_activity_gaps
  UNION ALL SELECT 'hour', kind, key, market, unit, hour::text, starts::text, ends::text FROM dim_activity_hours
  UNION ALL SELECT 'day', kind, key, market, unit, day::text, starts::text, ends::text FROM dim_activity_days
  ORDER BY 1, 2, 3, 4, 5, 6, 7`;

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
  db = await templateCopy('activity_markets_migration');
  client = db.client;
});

afterAll(() => db.drop());

describe('0017_activity_markets', () => {
  it('builds the category hulls per market of an existing database, exactly as ingest keeps them', async () => {
    for (const batch of dataset()) {
      await ingestAll(client, batch);
    }
    const kept = (await client.query(HULLS)).rows;
    const markets = new Set(kept.filter((r) => r.kind === 'category').map((r) => r.market));
    expect([...markets].sort()).toEqual(['*', 'DE', 'GB', 'US']);
    for (const statement of BEFORE_0017) await client.query(statement);
    expect(await migrate(client)).toEqual(['0017_activity_markets']);
    expect((await client.query(HULLS)).rows).toEqual(kept);
    expect(await rollupsDiffer(client)).toEqual([]);
  }, 120_000);
});
