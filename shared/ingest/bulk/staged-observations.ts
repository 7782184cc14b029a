// A bulk load's observations (drizzle/0018): its batches append their hours to observations_staged,
// which has no key and no index, and its end merges them into observations in one set-based step.
// An upsert per row cost the batches most of their database time, the conflict check of each row
// against the primary key (docs/INGEST.md "Bulk loads").
import type { Queryable } from '../../db/queryable';
import { invalidateWindows } from '../../feed/write';
import { INGEST_LOCK } from '../write/batch';
import { inTransaction, RAISE_MEMORY } from '../write/sql';

// The last staged line of each key (highest seq) replaces a stored hour whose values differ, or is
// inserted. Both writes read the statement's snapshot, and touch disjoint keys: UPDATE the stored
// ones, INSERT the others (an anti-join, not ON CONFLICT: each row's speculative insertion costs far
// more than a plain insert; docs/INGEST.md "Bulk loads").
const MERGE = `
WITH last AS MATERIALIZED (
  SELECT DISTINCT ON (url_id, country, language, hour) url_id, country, language, hour, impressions, position
  FROM observations_staged ORDER BY url_id, country, language, hour, seq DESC),
updated AS (
  UPDATE observations o SET impressions = l.impressions, position = l.position FROM last l
  WHERE (o.url_id, o.country, o.language, o.hour) = (l.url_id, l.country, l.language, l.hour)
    AND (o.impressions, o.position) IS DISTINCT FROM (l.impressions, l.position)
  RETURNING 1),
inserted AS (
  INSERT INTO observations (url_id, country, language, hour, impressions, position)
  SELECT * FROM last l WHERE NOT EXISTS (
    SELECT 1 FROM observations o WHERE (o.url_id, o.country, o.language, o.hour) = (l.url_id, l.country, l.language, l.hour))
  RETURNING 1)
SELECT (SELECT count(*) FROM inserted)::int AS inserted, (SELECT count(*) FROM updated)::int AS updated`;

/** observations' primary key, as drizzle/0000 creates it. */
const KEY = 'observations_url_id_country_language_hour_pk';

export interface MergedObservations {
  inserted: number;
  updated: number;
}

/**
 * Merges the staged observations into observations and empties the stage, in one transaction under
 * the ingest lock; returns how many stored hours it inserted and changed. With nothing staged it costs
 * one query (every run pays it: a load that died midway left its hours here).
 */
export async function mergeStagedObservations(db: Queryable): Promise<MergedObservations> {
  const staged = await db.query('SELECT 1 FROM observations_staged LIMIT 1');
  if (staged.rows.length === 0) return { inserted: 0, updated: 0 };
  return inTransaction(db, `BEGIN; SELECT pg_advisory_xact_lock(${INGEST_LOCK}); ${RAISE_MEMORY('work_mem', '256MB')}`, async () => {
    const merged = (await appendToEmpty(db)) ?? (await db.query<MergedObservations>(MERGE)).rows[0];
    await db.query('TRUNCATE observations_staged');
    // Changed hours set the feed windows back: the next slide (a bulk load's end) recomputes every profile.
    if (merged.inserted + merged.updated > 0) await invalidateWindows(db);
    return merged;
  });
}

/**
 * A first load (observations empty) whose lines repeat no key: every staged row is a new hour, so
 * they are appended as they are and the primary key is built over them in one sort, as pg_restore
 * would. A repeated key makes the key's build fail: the attempt is rolled back (null) and the merge
 * decides. Much cheaper than the merge (docs/INGEST.md "Bulk loads").
 */
async function appendToEmpty(db: Queryable): Promise<MergedObservations | null> {
  const [{ empty }] = (await db.query<{ empty: boolean }>('SELECT NOT EXISTS (SELECT 1 FROM observations) AS empty')).rows;
  if (!empty) return null;
  await db.query('SAVEPOINT append_to_empty');
  try {
    await db.query(RAISE_MEMORY('maintenance_work_mem', '512MB'));
    await db.query(`ALTER TABLE observations DROP CONSTRAINT ${KEY}`);
    const appended = await db.query(
      `INSERT INTO observations (url_id, country, language, hour, impressions, position)
       SELECT url_id, country, language, hour, impressions, position FROM observations_staged`,
    );
    await db.query(`ALTER TABLE observations ADD CONSTRAINT ${KEY} PRIMARY KEY (url_id, country, language, hour)`);
    await db.query('RELEASE SAVEPOINT append_to_empty');
    return { inserted: appended.rowCount ?? 0, updated: 0 };
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err;
    await db.query('ROLLBACK TO SAVEPOINT append_to_empty');
    return null;
  }
}
