// Multi-row upserts through `unnest`: one array parameter per column, so one statement (and one
// plan) serves any row count. Unchanged rows are not rewritten (`IS DISTINCT FROM` guard) and are
// not returned, which is how a second load of the same file reports zero changes.
import { namespaces } from '../../cache/namespaces';
import type { Queryable } from '../../db/queryable';
import type { CopyFrom } from './types';

export type { Queryable };

/** Raises a memory setting for the transaction, never lowers it (a bulk loader may have set more for its session). */
export const RAISE_MEMORY = (setting: 'work_mem' | 'maintenance_work_mem', size: string) =>
  `SELECT set_config('${setting}', '${size}', true) WHERE pg_size_bytes(current_setting('${setting}')) < pg_size_bytes('${size}')`;
/**
 * An array parameter as PostgreSQL's array literal with its elements written as they are, for values
 * that never need quoting (validated uuids, market codes, ISO hours, finite numbers): node-postgres
 * would quote and escape each element, time of the writer's thread the database waits for
 * (docs/INGEST.md "Bulk loads"). Anything else (free text, nulls) goes as a JS array.
 */
export const plainArray = (values: readonly (string | number)[]) => `{${values.join(',')}}`;

/** A table's primary key as the migrations create it: the constraint's name and definition. */
export interface TableKey {
  table: string;
  name: string;
  definition: string;
  /** The table's other indexes as the migrations create them: name and column list (btree). */
  indexes?: { name: string; columns: string }[];
}

/**
 * Fills tables this transaction truncated (so holds locked) with their primary keys and other indexes
 * built over the rows in one sort each, instead of one index insert per row in the order an aggregate
 * emits them (docs/INGEST.md "Bulk loads": keys built after the rows). The keys and indexes are dropped
 * before `insert` and created after it (a CLI test compares every index and constraint with a
 * migrated database).
 */
export const FILL_THEN_KEY = (keys: TableKey | TableKey[], insert: string | string[]) => [
  ...[keys]
    .flat()
    .flatMap((k) => [`ALTER TABLE ${k.table} DROP CONSTRAINT ${k.name}`, ...(k.indexes ?? []).map((i) => `DROP INDEX ${i.name}`)]),
  ...[insert].flat(),
  RAISE_MEMORY('maintenance_work_mem', '512MB'),
  ...[keys]
    .flat()
    .flatMap((k) => [
      `ALTER TABLE ${k.table} ADD CONSTRAINT ${k.name} ${k.definition}`,
      ...(k.indexes ?? []).map((i) => `CREATE INDEX ${i.name} ON ${k.table} USING btree (${i.columns})`),
    ]),
];

/** Runs `work` in one transaction opened by `begin` (which may also take locks and set locals): committed, or rolled back and rethrown. */
export async function inTransaction<T>(db: Queryable, begin: string, work: () => Promise<T>): Promise<T> {
  try {
    await db.query(begin);
    const result = await work();
    await db.query('COMMIT');
    return result;
  } catch (err) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

export type Row = Record<string, unknown>;

export interface Column {
  name: string;
  /** Postgres element type of the parameter array (`uuid`, `text`, `timestamptz`, ...). */
  type: string;
  /** SQL over `s.<name>` when the stored value is computed from the parameter. */
  expr?: string;
  /** false: written on insert only (ids, creation times). Key columns are never updated. */
  update?: boolean;
  /** SQL of the value on update (default `excluded.<name>`). */
  set?: string;
  /** SQL telling whether this column changed; default: part of the row's IS DISTINCT FROM test. */
  changed?: string;
}

export interface UpsertSpec {
  table: string;
  columns: Column[];
  /** The conflict target: a primary key or unique constraint's columns. */
  key: string[];
  /** Extra RETURNING expressions over the table row. */
  returning?: string;
}

export interface UpsertResult<R> {
  inserted: number;
  updated: number;
  /** Only rows that were inserted or changed. */
  rows: (R & { inserted: boolean })[];
}

/** A `text[]` column: pass each row's array as a literal, cast in SQL (unnest cannot take ragged 2-D arrays). */
export function textArrayColumn(name: string, update?: boolean): Column {
  return { name, type: 'text', expr: `s.${name}::text[]`, update };
}

export function pgArray(values: readonly string[] | null | undefined): string | null {
  if (values == null) return null;
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

export function json(value: unknown): string | null {
  return value == null ? null : JSON.stringify(value);
}

const { params: statements, copied: copiedStatements } = namespaces.upsertStatements;

/** The table an upsert's rows are copied into, in its transaction (upsert with `copyFrom`). */
const inputTable = (spec: UpsertSpec) => `${spec.table}_input`;

/** The upsert's statement, reading its rows from the parameters' arrays, or from its input table when `copied`. */
function upsertSql(spec: UpsertSpec, copied = false): string {
  const cache = copied ? copiedStatements : statements;
  const cached = cache.get(spec);
  if (cached) return cached;
  const names = spec.columns.map((c) => c.name);
  const params = spec.columns.map((c, i) => `$${i + 1}::${c.type}[]`);
  const exprs = spec.columns.map((c) => c.expr ?? `s.${c.name}`);
  const upd = spec.columns.filter((c) => c.update !== false && !spec.key.includes(c.name));
  const plain = upd.filter((c) => !c.changed).map((c) => c.name);
  const tests = upd.filter((c) => c.changed).map((c) => c.changed as string);
  if (plain.length) {
    tests.unshift(
      `(${plain.map((c) => `${spec.table}.${c}`).join(', ')}) IS DISTINCT FROM (${plain.map((c) => `excluded.${c}`).join(', ')})`,
    );
  }
  const onConflict = upd.length
    ? `DO UPDATE SET ${upd.map((c) => `${c.name} = ${c.set ?? `excluded.${c.name}`}`).join(', ')} WHERE ${tests.join(' OR ')}`
    : 'DO NOTHING';
  const source = copied ? `${inputTable(spec)} s` : `unnest(${params.join(', ')}) AS s(${names.join(', ')})`;
  const text = `INSERT INTO ${spec.table} (${names.join(', ')})
    SELECT ${exprs.join(', ')} FROM ${source}
    ON CONFLICT (${spec.key.join(', ')}) ${onConflict}
    RETURNING (xmax = 0) AS inserted${spec.returning ? `, ${spec.returning}` : ''}`;
  cache.set(spec, text);
  return text;
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A value in COPY's text format: NULL as `\N`; backslash, newline, carriage return and tab escaped,
 * the only characters that format reads specially. Strings, numbers and booleans only (what upsert
 * rows hold: JSON and arrays arrive as their text).
 */
export function copyText(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new Error(`COPY rows take strings, numbers and booleans, not ${Object.prototype.toString.call(value)}`);
  }
  const s = String(value);
  return /[\\\n\r\t]/.test(s) ? s.replace(/[\\\n\r\t]/g, (c) => COPY_ESCAPES[c]) : s;
}

/** Rows with the same key collapse to the last one (a statement may not touch a row twice). */
export function lastByKey<T extends Row>(rows: readonly T[], key: readonly string[]): T[] {
  const byKey = new Map<string, T>();
  for (const r of rows) {
    const k = key.map((c) => String(r[c])).join('\u0001');
    byKey.delete(k); // re-insert so the surviving row keeps the latest position
    byKey.set(k, r);
  }
  return [...byKey.values()];
}

export function columnsOf(columns: readonly Column[], rows: readonly Row[]): unknown[][] {
  return columns.map((c) => rows.map((r) => r[c.name] ?? null));
}

async function upsertCopied<R>(db: Queryable, spec: UpsertSpec, rows: readonly Row[], copyFrom: CopyFrom) {
  const table = inputTable(spec);
  await db.query(`CREATE TEMP TABLE ${table} (${spec.columns.map((c) => `${c.name} ${c.type}`).join(', ')}) ON COMMIT DROP`);
  await copyFrom(`COPY ${table} FROM STDIN`, rows.map((r) => `${spec.columns.map((c) => copyText(r[c.name])).join('\t')}\n`).join(''));
  const res = await db.query<R & { inserted: boolean }>(upsertSql(spec, true));
  await db.query(`DROP TABLE ${table}`);
  return res;
}

/**
 * Inserts the rows, or updates the stored ones that differ. With `copyFrom` the rows are first
 * copied into a table of their own for the transaction (`<table>_input`), which the same statement
 * reads instead of the parameters' arrays: COPY parses each value once, where an array parameter is
 * quoted by the driver and parsed as an array literal (docs/INGEST.md "Bulk loads": the batch's articles).
 */
export async function upsert<R = Row>(
  db: Queryable,
  spec: UpsertSpec,
  rows: readonly Row[],
  copyFrom?: CopyFrom,
): Promise<UpsertResult<R>> {
  if (rows.length === 0) return { inserted: 0, updated: 0, rows: [] };
  const unique = lastByKey(rows, spec.key);
  const res = copyFrom
    ? await upsertCopied<R>(db, spec, unique, copyFrom)
    : await db.query<R & { inserted: boolean }>(upsertSql(spec), columnsOf(spec.columns, unique));
  const inserted = res.rows.filter((r) => r.inserted).length;
  return { inserted, updated: res.rows.length - inserted, rows: res.rows };
}
