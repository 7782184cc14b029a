// drizzle/0013_hierarchy_counts.sql on a database loaded before it: its backfill builds exactly the
// hierarchy tables that ingest keeps (and that a rebuild makes) from the same data.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupsDiffer } from '../../scripts/bench/rollups-exact';
import { migrate } from '../../scripts/lib/migrations';
import { ingestAll, templateCopy } from './template-copy';
import { hourlyBatches, world } from '../fixtures/hierarchy-oracle';

let db: Awaited<ReturnType<typeof templateCopy>>;
let client: pg.Client;

/** The hierarchy tables by value (set ids differ between a backfill and ingest). */
const SNAPSHOT = `
  SELECT 'article' AS t, h.level, h.node_id::text, h.url_id::text AS url, t.items AS tm, a.items AS am, c.items AS cats, NULL::text AS market, NULL::int AS n
  FROM hierarchy_articles h JOIN hierarchy_sets t ON t.id = h.trend_set JOIN hierarchy_sets a ON a.id = h.article_set JOIN hierarchy_sets c ON c.id = h.category_set
  UNION ALL SELECT 'signature', h.level, h.node_id::text, NULL, t.items, a.items, c.items, NULL, h.n_articles
  FROM hierarchy_signatures h JOIN hierarchy_sets t ON t.id = h.trend_set JOIN hierarchy_sets a ON a.id = h.article_set JOIN hierarchy_sets c ON c.id = h.category_set
  UNION ALL SELECT 'count', level, node_id::text, NULL, NULL, NULL, NULL, market, n_articles FROM hierarchy_counts
  ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`;

beforeAll(async () => {
  db = await templateCopy('hierarchy_migration');
  client = db.client;
});

afterAll(() => db.drop());

describe('0013_hierarchy_counts', () => {
  it('backfills an existing database with exactly what ingest keeps', async () => {
    for (const lines of [world(), ...hourlyBatches()]) {
      await ingestAll(client, lines);
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
