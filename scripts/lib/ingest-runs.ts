// What an operator reads of the drop's ledger (`npm run admin -- ingest:status | ingest:errors`):
// recent runs with state, lines/s, lag and bad lines; a run's stored bad lines.
import { AdminError } from '../../shared/admin/projects';
import type { Queryable } from '../../shared/db/queryable';

export class Table {
  constructor(
    readonly data: unknown,
    readonly text: string,
  ) {}
}

export interface RunStatus {
  run_id: string;
  object_key: string;
  etag: string;
  state: string;
  format: string | null;
  size: number;
  read: number;
  loaded: number;
  bad_lines: number;
  lines_done: number;
  chunks: number;
  attempts: number;
  /** Lines read per second between start and end (or now, while running). */
  lines_per_second: number | null;
  /** Seconds from the drop (R2's event time) to the run's end, or to now while it is not over. */
  lag_seconds: number;
  /** Seconds from the drop to the first chunk's start (queueing). */
  wait_seconds: number | null;
  dropped_at: string;
  started_at: string | null;
  finished_at: string | null;
  reason: string | null;
}

const UNITS: Record<string, string> = { m: 'minutes', h: 'hours', d: 'days' };

/** `24h`, `30m`, `7d` as a PostgreSQL interval. */
export function parseSince(value: string): string {
  const m = /^(\d+)([mhd])$/.exec(value.trim());
  if (!m) throw new AdminError(`--since takes a number and m, h or d (30m, 24h, 7d); got '${value}'`);
  return `${m[1]} ${UNITS[m[2]!]}`;
}

export async function ingestStatus(db: Queryable, since = '24h'): Promise<Table> {
  const { rows } = await db.query<RunStatus>(
    `SELECT id::text AS run_id, object_key, etag, state, format, size::float8 AS size, read, loaded, skipped AS bad_lines,
       lines_done, chunks, attempts,
       round((read / nullif(extract(epoch FROM coalesce(finished_at, now()) - started_at), 0))::numeric, 1)::float8 AS lines_per_second,
       round(extract(epoch FROM coalesce(finished_at, now()) - event_time)::numeric, 1)::float8 AS lag_seconds,
       round(extract(epoch FROM started_at - event_time)::numeric, 1)::float8 AS wait_seconds,
       to_char(event_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS dropped_at,
       to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS started_at,
       to_char(finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS finished_at, reason
     FROM ingest_runs WHERE created_at >= now() - $1::interval OR state IN ('queued', 'running')
     ORDER BY event_time DESC, id DESC`,
    [parseSince(since)],
  );
  const head = ['run', 'state', 'dropped', 'lines', 'bad', 'lines/s', 'lag', 'object'];
  const cells = rows.map((r) => [
    r.run_id,
    r.state,
    r.dropped_at,
    String(r.read),
    String(r.bad_lines),
    r.lines_per_second === null ? '-' : String(r.lines_per_second),
    `${r.lag_seconds} s`,
    r.object_key + (r.reason ? `  (${r.reason})` : ''),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i]!))).join('  ');
  const text = rows.length ? [line(head), ...cells.map(line)].join('\n') : `(no ingest runs in the last ${since})`;
  return new Table(rows, text);
}

export async function ingestErrors(db: Queryable, runId: string): Promise<Table> {
  if (!/^\d+$/.test(runId)) throw new AdminError(`<run> is a run id (a number, see ingest:status); got '${runId}'`);
  const { rows: runs } = await db.query<{ object_key: string; skipped: number }>(
    'SELECT object_key, skipped FROM ingest_runs WHERE id = $1',
    [runId],
  );
  if (!runs[0]) throw new AdminError(`no ingest run ${runId}`);
  const { rows } = await db.query<{ line: number; reason: string }>(
    'SELECT line, reason FROM ingest_run_errors WHERE run_id = $1 ORDER BY line',
    [runId],
  );
  const text = [
    `run ${runId} (${runs[0].object_key}): ${rows.length} bad line(s)`,
    ...rows.map((r) => `  line ${r.line}: ${r.reason}`),
  ].join('\n');
  return new Table({ run_id: runId, object_key: runs[0].object_key, errors: rows }, text);
}
