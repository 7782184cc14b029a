// drizzle/0013_hierarchy_counts.sql on a database loaded before it: its backfill builds exactly the
// hierarchy tables that ingest keeps (and that a rebuild makes) from the same data.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ingest } from '../../shared/ingest/index';
import { rollupsDiffer } from '../../scripts/bench/rollups-exact';
import { migrate } from '../../scripts/lib/migrations';
import { hourlyBatches, world } from '../fixtures/hierarchy-oracle';

const SERVER = inject('adminDatabaseUrl').replace(/\/[^/]*$/, '');
const DB = `t_hierarchy_migration_${inject('runId')}`;
let client: pg.Client;

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: `${SERVER}/postgres` });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** The hierarchy tables by value (set ids differ between a backfill and ingest). */
const SNAPSHOT = `
  SELECT 'article' AS t, h.level, h.node_id::text, h.url_id::text AS url, t.items AS tm, a.items AS am, c.items AS cats, NULL::text AS market, NULL::int AS n
  FROM hierarchy_articles h JOIN hierarchy_sets t ON t.id = h.trend_set JOIN hierarchy_sets a ON a.id = h.article_set JOIN hierarchy_sets c ON c.id = h.category_set
  UNION ALL SELECT 'signature', h.level, h.node_id::text, NULL, t.items, a.items, c.items, NULL, h.n_articles
  FROM hierarchy_signatures h JOIN hierarchy_sets t ON t.id = h.trend_set JOIN hierarchy_sets a ON a.id = h.article_set JOIN hierarchy_sets c ON c.id = h.category_set
  UNION ALL SELECT 'count', level, node_id::text, NULL, NULL, NULL, NULL, market, n_articles FROM hierarchy_counts
  ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`;

beforeAll(async () => {
  await admin(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${DB} TEMPLATE ${inject('templateDatabase')}`);
  client = new pg.Client({ connectionString: `${SERVER}/${DB}` });
  await client.connect();
});

afterAll(async () => {
  await client.end();
  await admin(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
});

describe('0013_hierarchy_counts', () => {
  it('backfills an existing database with exactly what ingest keeps', async () => {
    for (const lines of [world(), ...hourlyBatches()]) {
      const summary = await ingest(
        client,
        lines.map((l) => JSON.stringify(l)),
      );
      expect(summary.skipped, JSON.stringify(summary.errors.slice(0, 3))).toBe(0);
    }
    const kept = (await client.query(SNAPSHOT)).rows;
    expect(kept.filter((r) => r.t === 'count').length).toBeGreaterThan(10);
    // The database as it was before the migration, then migrated in place.
    await client.query('DROP TABLE hierarchy_articles, hierarchy_signatures, hierarchy_counts, hierarchy_sets');
    await client.query(`DELETE FROM schema_migrations WHERE tag = '0013_hierarchy_counts'`);
    expect(await migrate(client)).toEqual(['0013_hierarchy_counts']);
    expect((await client.query(SNAPSHOT)).rows).toEqual(kept);
    expect(await rollupsDiffer(client)).toEqual([]);
  }, 120_000);
});
