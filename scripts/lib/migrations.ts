// Applies drizzle/*.sql in journal order, once each, over any node-postgres compatible client.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Queryable } from '../../shared/db/queryable';
import { REBUILD_ACTIVITY } from '../../shared/ingest/bulk/rebuild-activity';
import { restoreDeferredIndexes } from '../../shared/ingest/bulk/deferred-indexes';
import { RAISE_MEMORY } from '../../shared/ingest/write/sql';

const ROOT = join(import.meta.dirname, '..', '..', 'drizzle');

/** The migration that creates deferred_indexes (shared/ingest/bulk/deferred-indexes.ts). */
const DEFERRED_INDEXES_TAG = '0015_deferred_indexes';

/**
 * Data a migration's new schema needs, built in its transaction from what the database holds, where
 * the ingest's rebuild already has the statements (one copy of the SQL; 0013 carries its own). These
 * are today's statements, written for today's schema: a later migration that changes the tables they
 * write must take the backfill over (run it itself, after its change) and drop it from here.
 */
const BACKFILLS: Record<string, string[]> = {
  // The activity hulls open at the frontier (drizzle/0023); the rebuild also builds the category kind's
  // hulls per market that 0017 added (it took that backfill over: the rebuild writes 0023's frontier).
  '0023_activity_frontier': [RAISE_MEMORY('work_mem', '256MB'), ...REBUILD_ACTIVITY],
};

interface Journal {
  entries: { idx: number; tag: string }[];
}

export async function migrate(client: Queryable, log: (line: string) => void = () => {}): Promise<string[]> {
  const journal = JSON.parse(await readFile(join(ROOT, 'meta', '_journal.json'), 'utf8')) as Journal;
  await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (tag text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  const { rows } = await client.query<{ tag: string }>('SELECT tag FROM schema_migrations');
  const done = new Set(rows.map((r) => r.tag));
  // A bulk load that died left indexes and foreign keys dropped: later migrations expect the whole schema.
  if (done.has(DEFERRED_INDEXES_TAG)) await restoreDeferredIndexes(client);
  const applied: string[] = [];
  for (const { tag } of [...journal.entries].sort((a, b) => a.idx - b.idx)) {
    if (done.has(tag)) continue;
    const text = await readFile(join(ROOT, `${tag}.sql`), 'utf8');
    await client.query('BEGIN');
    try {
      for (const statement of text.split('--> statement-breakpoint')) {
        if (statement.trim()) await client.query(statement);
      }
      for (const statement of BACKFILLS[tag] ?? []) await client.query(statement);
      await client.query('INSERT INTO schema_migrations (tag) VALUES ($1)', [tag]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw new Error(`migration ${tag} failed: ${(err as Error).message}`);
    }
    applied.push(tag);
    log(`applied ${tag}`);
  }
  return applied;
}
