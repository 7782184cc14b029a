// A bulk load's batches would maintain indexes and foreign keys that nothing reads meanwhile (the
// API's search, publisher, recency, market and feed sort indexes; foreign keys the batch guarantees anyway).
// As pg_restore does, a bulk load drops them before its first batch and creates each once over the
// loaded rows at its end, which costs far less than keeping them row by row. Each dropped object's
// exact definition is recorded (deferred_indexes, drizzle/0015) in the transaction that drops it
// and deleted in the one that recreates it: a load that dies midway leaves behind what to restore,
// and every ingest run, `npm run rollups:rebuild` and `npm run db:migrate` restore it first.
import type { Queryable } from '../../db/queryable';
import { INGEST_LOCK } from '../write/batch';
import { inTransaction, RAISE_MEMORY } from '../write/sql';

/**
 * Read by no batch statement: EXPLAIN of each one late in a bulk load of the bench set found them
 * on primary keys only, with or without these (article_categories_name_idx even drew the delete of
 * stale categories into a scan of the whole index). Primary keys and unique constraints stay: the
 * upserts' ON CONFLICT and the article URL check need them.
 */
export const DEFERRED_INDEXES = [
  'observations_hour_idx',
  'observations_market_hour_idx',
  'articles_title_search_idx',
  'articles_body_search_idx',
  'articles_domain_idx',
  'articles_domain_recent_idx',
  'articles_first_seen_idx',
  'url_profiles_first_seen_key_idx',
  'url_profiles_last_seen_idx',
  'url_profiles_last_seen_key_idx',
  'url_profiles_avg_position_key_idx',
  'url_profiles_country_first_seen_idx',
  'url_profiles_market_first_seen_idx',
  'article_entities_entity_idx',
  'article_entities_entity_score_idx',
  'article_categories_name_idx',
  // The feed's sort indexes: a bulk load's end builds every row of the windows, then these over them
  // (cheaper than keeping them row by row: docs/INGEST.md "Bulk loads").
  'profile_windows_1h_idx',
  'profile_windows_24h_idx',
  'profile_windows_7d_idx',
  'profile_windows_30d_idx',
  'profile_windows_derived_idx',
  'profile_windows_first_seen_idx',
  'profile_windows_last_seen_idx',
  'profile_windows_avg_position_idx',
];

/**
 * Checked on every inserted row, and guaranteed by the batch anyway: the precheck refuses an
 * observation of an unknown article before anything is written, profiles come from observations,
 * mentions and categories from the batch's own article lines (a mention's entity is created or found
 * first), and no batch deletes an article. Recreating them validates every row once.
 */
export const DEFERRED_FOREIGN_KEYS = [
  'observations_url_id_articles_id_fk',
  'url_profiles_url_id_articles_id_fk',
  'article_entities_url_id_articles_id_fk',
  'article_entities_entity_id_entities_id_fk',
  'article_categories_url_id_articles_id_fk',
];

// Records the objects of the lists that exist and returns the statements that drop them.
const RECORD = `
INSERT INTO deferred_indexes (name, table_name, kind, definition)
SELECT indexname, quote_ident(tablename), 'index', indexdef FROM pg_indexes
WHERE schemaname = current_schema() AND indexname = ANY($1::text[])
UNION ALL
SELECT conname, conrelid::regclass::text, 'foreign key', pg_get_constraintdef(oid) FROM pg_constraint
WHERE contype = 'f' AND connamespace = current_schema()::regnamespace AND conname = ANY($2::text[])
RETURNING CASE kind WHEN 'index' THEN format('DROP INDEX %I', name)
  ELSE format('ALTER TABLE %s DROP CONSTRAINT %I', table_name, name) END AS statement`;

// The statements that recreate what is recorded and missing, indexes before foreign keys.
const MISSING = `
SELECT table_name, CASE kind WHEN 'index' THEN definition
  ELSE format('ALTER TABLE %s ADD CONSTRAINT %I %s', table_name, name, definition) END AS statement
FROM deferred_indexes d
WHERE CASE kind WHEN 'index' THEN to_regclass(format('%I', name)) IS NULL
  ELSE NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = d.name AND c.conrelid = to_regclass(d.table_name)) END
ORDER BY kind = 'foreign key', name`;

/** One transaction under the ingest lock: concurrent runs never drop or recreate at the same time. */
const underIngestLock = <T>(db: Queryable, work: () => Promise<T>) =>
  inTransaction(db, `BEGIN; SELECT pg_advisory_xact_lock(${INGEST_LOCK})`, work);

async function runEach(db: Queryable, statements: { statement: string }[]): Promise<void> {
  for (const { statement } of statements) await db.query(statement);
}

/** Before a bulk load's first batch: drops the deferred indexes and foreign keys, recording their definitions. */
export async function deferIndexes(db: Queryable): Promise<number> {
  return underIngestLock(db, async () => {
    const { rows } = await db.query<{ statement: string }>(RECORD, [DEFERRED_INDEXES, DEFERRED_FOREIGN_KEYS]);
    await runEach(db, rows);
    return rows.length;
  });
}

/**
 * Recreates what is recorded and missing and clears the records, in one transaction; returns how
 * many objects it created, and adds the tables it analyzed to `analyzed` (skipping those already
 * there). Idempotent: with nothing recorded it costs one query (every run pays it).
 * Each index is built in one sort, given maintenance memory as the rebuild's primary key is; a
 * foreign key is added plainly, which validates it (NOT VALID then VALIDATE took as long).
 *
 * The tables are analyzed as well: building an index sets a table's row count, and a planner that
 * knew the count but, with no statistics yet, neither the widths nor the distinct values of the
 * columns turned the rebuild's dim_hours aggregate into a parallel sort, slower than the hashed one
 * it plans without the count or with statistics (docs/INGEST.md "Bulk loads").
 */
export async function restoreDeferredIndexes(db: Queryable, analyzed?: Set<string>): Promise<number> {
  const recorded = await db.query('SELECT 1 FROM deferred_indexes LIMIT 1');
  if (recorded.rows.length === 0) return 0;
  return underIngestLock(db, async () => {
    await db.query(RAISE_MEMORY('maintenance_work_mem', '512MB'));
    // Read under the lock: a concurrent run may have restored them meanwhile.
    const missing = (await db.query<{ table_name: string; statement: string }>(MISSING)).rows;
    await runEach(db, missing);
    const tables = [...new Set(missing.map((m) => m.table_name))].filter((table) => !analyzed?.has(table));
    if (tables.length > 0) await db.query(`ANALYZE ${tables.join(', ')}`);
    for (const table of tables) analyzed?.add(table);
    await db.query('DELETE FROM deferred_indexes');
    return missing.length;
  });
}
