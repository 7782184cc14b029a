// The ingest ledger (drizzle/0021_ingest_runs.sql, docs/INGEST.md "The drop"): one row per object
// version, advanced inside each chunk's batch transaction by a compare-and-set on `lines_done`, so a
// chunk commits together with its ledger step or not at all, and never twice.
import type { Queryable } from '../../db/queryable';
import type { LineError } from '../write/types';

export type RunState = 'queued' | 'running' | 'done' | 'failed';

export interface Run {
  id: string;
  object_key: string;
  etag: string;
  size: number;
  event_time: string;
  state: RunState;
  format: string | null;
  lines_done: number;
  resume_byte: number;
  resume_line: number;
  read: number;
  loaded: number;
  skipped: number;
  attempts: number;
}

/** What an R2 event notification says about a new object (the fields we use). */
export interface ObjectVersion {
  key: string;
  etag: string;
  size: number;
  eventTime: string;
}

const RUN_COLUMNS = `id::text, object_key, etag, size::float8 AS size, event_time::text, state, format, lines_done,
  resume_byte::float8 AS resume_byte, resume_line, read, loaded, skipped, attempts`;

/** The run of this object version, created on its first notification (a redelivery finds the same one). */
export async function registerRun(db: Queryable, v: ObjectVersion): Promise<Run> {
  const { rows } = await db.query<Run>(
    `INSERT INTO ingest_runs (object_key, etag, size, event_time) VALUES ($1, $2, $3, $4)
     ON CONFLICT (object_key, etag) DO UPDATE SET object_key = excluded.object_key
     RETURNING ${RUN_COLUMNS}`,
    [v.key, v.etag, v.size, v.eventTime],
  );
  return rows[0]!;
}

/**
 * The oldest pending run that has not moved for `quietMs`: its messages are gone (an isolate or
 * `npm start` died with them, or they ended in the dead-letter queue after their retries).
 */
export async function stalledRun(db: Queryable, quietMs: number): Promise<Run | undefined> {
  const { rows } = await db.query<Run>(
    `SELECT ${RUN_COLUMNS} FROM ingest_runs WHERE state IN ('queued', 'running') AND updated_at <= now() - $1 * interval '1 millisecond'
     ORDER BY event_time, id LIMIT 1`,
    [quietMs],
  );
  return rows[0];
}

/** The oldest run not finished (arrival order: the notification's event time, then registration). */
export async function nextPending(db: Queryable): Promise<Run | undefined> {
  const { rows } = await db.query<Run>(
    `SELECT ${RUN_COLUMNS} FROM ingest_runs WHERE state IN ('queued', 'running') ORDER BY event_time, id LIMIT 1`,
  );
  return rows[0];
}

export async function markRunning(db: Queryable, id: string, format: string): Promise<void> {
  await db.query(
    `UPDATE ingest_runs SET state = 'running', format = coalesce(format, $2), started_at = coalesce(started_at, now()),
       attempts = attempts + 1, updated_at = now() WHERE id = $1`,
    [id, format],
  );
}

/** One committed step of a run: written inside the transaction of the lines it covers. */
export interface Step {
  /** lines_done the step starts from (the compare-and-set's expected value). */
  from: number;
  /** lines_done after the step. */
  to: number;
  /** A plain file's next read position, when the step ends on a chunk boundary. */
  resume?: { byte: number; line: number };
  read: number;
  loaded: number;
  errors: LineError[];
  changed: number;
  chunk: boolean;
  newestHour: number;
  tables: string[];
}

/** Thrown inside a batch whose ledger row moved meanwhile: the batch rolls back, nothing is applied twice. */
export class LedgerMoved extends Error {}

export async function advanceRun(db: Queryable, id: string, s: Step): Promise<void> {
  const { rowCount } = await db.query(
    `UPDATE ingest_runs SET lines_done = $3, updated_at = now(),
       resume_byte = coalesce($4, resume_byte), resume_line = coalesce($5, resume_line),
       read = read + $6, loaded = loaded + $7, skipped = skipped + $8, changed = changed + $9, chunks = chunks + $10,
       newest_hour = greatest(newest_hour, $11::timestamptz),
       changed_tables = ARRAY(SELECT DISTINCT t FROM unnest(changed_tables || $12::text[]) AS t ORDER BY t)
     WHERE id = $1 AND lines_done = $2 AND state = 'running'`,
    [
      id,
      s.from,
      s.to,
      s.resume?.byte ?? null,
      s.resume?.line ?? null,
      s.read,
      s.loaded,
      s.errors.length,
      s.changed,
      s.chunk ? 1 : 0,
      Number.isFinite(s.newestHour) ? new Date(s.newestHour).toISOString() : null,
      s.tables,
    ],
  );
  if (rowCount !== 1) throw new LedgerMoved(`ingest run ${id} moved past line ${s.from} meanwhile`);
  if (s.errors.length === 0) return;
  await db.query(
    `INSERT INTO ingest_run_errors (run_id, line, reason) SELECT $1::bigint, * FROM unnest($2::int[], $3::text[])
     ON CONFLICT DO NOTHING`,
    [id, s.errors.map((e) => e.line), s.errors.map((e) => e.reason)],
  );
}

/** The run's end, and what it read (newest hour, changed tables) for the watermark and ANALYZE. */
export async function finishRun(db: Queryable, id: string): Promise<{ newest_hour: Date | null; changed_tables: string[] }> {
  const { rows } = await db.query<{ newest_hour: Date | null; changed_tables: string[] }>(
    `UPDATE ingest_runs SET state = 'done', finished_at = now() WHERE id = $1 AND state = 'running'
     RETURNING newest_hour, changed_tables`,
    [id],
  );
  if (!rows[0]) throw new LedgerMoved(`ingest run ${id} is no longer running`);
  return rows[0];
}

export async function failRun(db: Queryable, id: string, reason: string): Promise<void> {
  await db.query(
    `UPDATE ingest_runs SET state = 'failed', reason = $2, finished_at = now(), started_at = coalesce(started_at, now())
     WHERE id = $1 AND state IN ('queued', 'running')`,
    [id, reason.slice(0, 1000)],
  );
}
