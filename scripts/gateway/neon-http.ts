// Neon's HTTP SQL endpoint (POST /sql), as @neondatabase/serverless 1.x calls it:
// body {query, params} or {queries:[...]} (a batch run as one transaction), headers
// Neon-Connection-String, Neon-Raw-Text-Output, Neon-Array-Mode, Neon-Batch-*.
// Rows carry raw Postgres text; the driver parses them itself by dataTypeID.
// A database error is status 400 with the Postgres error fields: the driver copies
// message, code, detail, hint, position, ... onto its NeonDbError.
// In front of PGlite (one connection at a time), a request that waits for the database longer than its
// own statement_timeout gets PostgreSQL's statement-timeout error (57014), as a lock wait on a real
// server would: the Workers answer it with their 503 + Retry-After (shared/http/errors.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import pg from 'pg';
import { header, HttpError, readJson, sendJson } from './http-util';
import type { PgPools } from './pg-pools';
import { SET_LOCAL_TIMEOUT } from '../../shared/db/timeout';

interface NeonQuery {
  query: string;
  params?: unknown[];
}

// Identity parsers: node-postgres hands back the server's text unchanged.
const RAW_TEXT_TYPES = {
  getTypeParser: (() => (v: string) => v) as unknown as pg.CustomTypesConfig['getTypeParser'],
};

const ISOLATION: Record<string, string> = {
  ReadUncommitted: 'READ UNCOMMITTED',
  ReadCommitted: 'READ COMMITTED',
  RepeatableRead: 'REPEATABLE READ',
  Serializable: 'SERIALIZABLE',
};

const ERROR_FIELDS = [
  'severity',
  'code',
  'detail',
  'hint',
  'position',
  'internalPosition',
  'internalQuery',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'file',
  'line',
  'routine',
] as const;

function isQuery(v: unknown): v is NeonQuery {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as NeonQuery).query === 'string' &&
    ((v as NeonQuery).params === undefined || Array.isArray((v as NeonQuery).params))
  );
}

function databaseName(connectionString: string | undefined): string | undefined {
  if (!connectionString) return undefined;
  try {
    const name = new URL(connectionString).pathname.replace(/^\//, '');
    return name ? decodeURIComponent(name) : undefined;
  } catch {
    throw new HttpError(400, 'Neon-Connection-String is not a valid URL');
  }
}

async function run(client: pg.PoolClient, q: NeonQuery, arrayMode: boolean) {
  // Always the extended protocol, as Neon's proxy does: one statement per query, even without
  // parameters (so "SELECT 1; SELECT 2" fails locally exactly as it fails against Neon).
  const config = {
    text: q.query,
    values: q.params ?? [],
    rowMode: 'array' as const,
    types: RAW_TEXT_TYPES,
    queryMode: 'extended',
  };
  const r = await client.query(config as pg.QueryArrayConfig);
  const fields = r.fields.map((f) => ({
    name: f.name,
    dataTypeID: f.dataTypeID,
    tableID: f.tableID,
    columnID: f.columnID,
    dataTypeSize: f.dataTypeSize,
    dataTypeModifier: f.dataTypeModifier,
    format: 'text',
  }));
  const rows = arrayMode ? r.rows : r.rows.map((row) => Object.fromEntries(fields.map((f, i) => [f.name, row[i]])));
  return { command: r.command, rowCount: r.rowCount, rows, rowAsArray: arrayMode, fields };
}

function beginStatement(req: IncomingMessage): string {
  const modes: string[] = [];
  const iso = header(req, 'neon-batch-isolation-level');
  if (iso !== undefined) {
    const level = ISOLATION[iso];
    if (!level) throw new HttpError(400, `unknown Neon-Batch-Isolation-Level: ${iso}`);
    modes.push(`ISOLATION LEVEL ${level}`);
  }
  const ro = header(req, 'neon-batch-read-only');
  if (ro !== undefined) modes.push(ro === 'true' ? 'READ ONLY' : 'READ WRITE');
  const def = header(req, 'neon-batch-deferrable');
  if (def !== undefined) modes.push(def === 'true' ? 'DEFERRABLE' : 'NOT DEFERRABLE');
  return modes.length ? `BEGIN ${modes.join(', ')}` : 'BEGIN';
}

function errorBody(err: unknown): Record<string, unknown> {
  const e = err as Record<string, unknown>;
  const body: Record<string, unknown> = { message: err instanceof Error ? err.message : String(err) };
  for (const k of ERROR_FIELDS) if (e[k] !== undefined) body[k] = e[k];
  return body;
}

export interface EmbeddedWait {
  /** The connection that holds the embedded database now (null when free), for the error's detail. */
  holder(): string | null;
  /** How long a request that sets no statement_timeout of its own may wait (ms). */
  defaultWaitMs: number;
}

/** The statement_timeout a request sets for itself: its batch opens with SET_LOCAL_TIMEOUT (shared/db/timeout.ts). */
function ownTimeoutMs(batch: NeonQuery[] | undefined): number | undefined {
  const first = batch?.[0];
  const ms = first?.query === SET_LOCAL_TIMEOUT ? Number(first.params?.[0]) : Number.NaN;
  return ms > 0 ? ms : undefined;
}

const LATE = Symbol('late');
const GONE = Symbol('gone');

function lateBody(waitedMs: number, limitMs: number, holder: string | null): Record<string, unknown> {
  return {
    message: 'canceling statement due to statement timeout',
    code: '57014',
    severity: 'ERROR',
    detail: `waited ${waitedMs} ms for the embedded database (limit ${limitMs} ms, the request's statement_timeout); ${holder ? `held by ${holder}` : 'it was busy'}`,
    hint: 'The local gateway serves one connection at a time; retry later.',
  };
}

export function createNeonHttpHandler(pools: PgPools, embedded?: EmbeddedWait) {
  return async function handleSql(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = (await readJson(req)) as { queries?: unknown };
    const arrayMode = header(req, 'neon-array-mode') === 'true';
    const pool = pools.get(databaseName(header(req, 'neon-connection-string')));
    const batch = Array.isArray(body.queries) ? body.queries : undefined;
    if (batch ? !batch.every(isQuery) : !isQuery(body)) {
      throw new HttpError(400, 'expected {query, params} or {queries: [{query, params}]}');
    }
    const begin = batch ? beginStatement(req) : '';

    // Until its first statement is answered, a request waits (for a pooled connection, then for PGlite):
    // at most its own statement_timeout, and not at all once its caller has gone (a Worker's fetch that
    // timed out or was cancelled), so abandoned requests never pile up in front of PGlite.
    const started = Date.now();
    const limitMs = ownTimeoutMs(batch as NeonQuery[] | undefined) ?? embedded?.defaultWaitMs ?? 0;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<typeof LATE>((resolve) => {
      if (embedded) timer = setTimeout(() => resolve(LATE), limitMs);
    });
    const gone = new Promise<typeof GONE>((resolve) => res.once('close', () => !res.writableEnded && resolve(GONE)));
    const tooLate = () => sendJson(res, 400, lateBody(Date.now() - started, limitMs, embedded?.holder() ?? null));

    let client: pg.PoolClient;
    try {
      const connecting = pool.connect();
      const got = await Promise.race([connecting, late, gone]);
      if (got === LATE || got === GONE) {
        clearTimeout(timer);
        connecting.then(
          (c) => c.release(),
          () => undefined,
        );
        return got === LATE ? tooLate() : undefined;
      }
      client = got;
    } catch (err) {
      clearTimeout(timer);
      // e.g. 3D000 database does not exist, 28P01 auth: a Postgres error the caller should see
      if (err instanceof pg.DatabaseError) return sendJson(res, 400, errorBody(err));
      throw err;
    }
    let broken: Error | undefined; // a non-SQL failure: the connection must not be reused
    try {
      const first = batch ? client.query(begin) : run(client, body as NeonQuery, arrayMode);
      first.catch(() => undefined); // awaited below, unless abandoned
      const outcome = await Promise.race([first, late, gone]);
      if (outcome === LATE || outcome === GONE) {
        // Closing it takes the waiting connection out of PGlite's queue (or rolls back what it began).
        broken = new Error(outcome === LATE ? 'waited longer than its statement_timeout' : 'its caller went away');
        return outcome === LATE ? tooLate() : undefined;
      }
      clearTimeout(timer);
      if (!batch) return sendJson(res, 200, await first);
      const results = [];
      try {
        for (const q of batch as NeonQuery[]) results.push(await run(client, q, arrayMode));
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch((e: Error) => (broken = e));
        throw err;
      }
      sendJson(res, 200, { results });
    } catch (err) {
      if (!(err instanceof pg.DatabaseError)) broken = err instanceof Error ? err : new Error(String(err));
      sendJson(res, 400, errorBody(err));
    } finally {
      clearTimeout(timer);
      client.release(broken);
    }
  };
}
