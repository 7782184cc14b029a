// statement_timeout on Neon's HTTP path without a round trip of its own: every query and batch is sent
// as one HTTP transaction whose first statement is `SET LOCAL statement_timeout` (docs/SECURITY.md).
import type { NeonQueryFunction, NeonQueryPromise } from '@neondatabase/serverless';

import type { Queryable } from './queryable';

type Sql = NeonQueryFunction<false, false>;
type Query = NeonQueryPromise<false, false>;

/** Statement timeouts per query path, in milliseconds (each overridable by its binding or variable). */
export const STATEMENT_TIMEOUT_MS = {
  /** A request's query: an answer slower than this is a 503 + Retry-After, not a held isolate. */
  request: 5_000,
  /** Queue jobs and the cron (aggregates computed in the background, feed window slides, scans). */
  job: 60_000,
  /** `npm run ingest` (batches and roll-up rebuilds over a whole load). */
  ingest: 900_000,
} as const;

/**
 * The SQL that sets the timeout for the rest of the transaction it runs in (`SET LOCAL` as a function),
 * and `jit` when $2 is not null (else the server's setting stays).
 */
export const SET_LOCAL_TIMEOUT = `SELECT set_config('statement_timeout', $1, true), set_config('jit', coalesce($2, current_setting('jit')), true)`;

/**
 * `sql` with a statement_timeout of `ms` on every query it sends. A lone query becomes the transaction
 * [SET LOCAL, query] and a `transaction([...])` gets the SET LOCAL prepended: one HTTP request either
 * way, as before. `SET LOCAL` ends with its transaction, so it works through Neon's pooler (a session
 * `SET`, a startup parameter or connection-string `options` would not, and would cost a round trip).
 *
 * `jitOff`: a request's statements run without JIT compilation. They are index walks of milliseconds,
 * but a misestimated row count can push one past `jit_above_cost`, and PostgreSQL then spends longer
 * compiling it than running it (category analytics of one market on the whole bench set;
 * docs/SECURITY.md "Statement timeouts"). Jobs keep the server's setting: their aggregates scan millions of rows.
 */
export function withStatementTimeout(sql: Sql, ms: number, jitOff = false): Sql {
  const setLocal = () => sql.query(SET_LOCAL_TIMEOUT, [String(Math.round(ms)), jitOff ? 'off' : null]);
  const transaction = (async (queries: Query[] | ((s: Sql) => Query[]), opts?: object) => {
    const list = typeof queries === 'function' ? queries(timed) : queries;
    const results = await sql.transaction([setLocal(), ...list] as never, opts as never);
    return results.slice(1);
  }) as Sql['transaction'];
  const lone = <Q>(q: Q): Q => {
    // A NeonQueryPromise runs its own `execute` when awaited alone; inside transaction() only its
    // queryData and opts are read, so the same object still batches.
    const self = q as unknown as { execute: unknown; opts?: object };
    self.execute = async () => {
      const [result] = await transaction([q as Query], self.opts);
      return result;
    };
    return q;
  };
  const timed = ((strings: TemplateStringsArray, ...params: unknown[]) => lone(sql(strings, ...params))) as Sql;
  timed.query = ((text: string, params?: unknown[], opts?: object) => lone(sql.query(text, params, opts as never))) as Sql['query'];
  timed.unsafe = sql.unsafe;
  timed.transaction = transaction;
  return timed;
}

/**
 * The session's statement_timeout on a WebSocket/node-postgres client (jobs' scans, ingest): those
 * paths hold one connection for their work, so one `SET` after connecting covers every statement.
 */
export async function setSessionTimeout(client: Queryable, ms: number): Promise<void> {
  await client.query(`SELECT set_config('statement_timeout', $1, false)`, [String(Math.round(ms))]);
}
