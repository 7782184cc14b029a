// Parameterised SQL for aggregates that read better as SQL than as a query builder.
// Cast counts to int/float8 in SQL: the driver returns bigint and numeric as strings.
import type { SQL } from 'drizzle-orm';
import type { Db } from './client';

/**
 * The rows of drizzle's `sql` template: it names the schema's tables and columns (`${articles.title}`),
 * so renaming one fails the type check where it is read, and each interpolated value is a bound
 * parameter (an array as one parameter only through `sql.param`: bare, it expands to a list).
 * `T` is the row's shape; derive its fields from the schema's columns (`GetColumnData`).
 */
export async function sqlRows<T>(db: Db, query: SQL): Promise<T[]> {
  return (await db.execute(query)).rows as T[];
}

/**
 * Positional SQL text, for the three statements every request's path may run before any table definition
 * is loaded (the key lookup, shared/auth/keys.ts; the watermark, shared/http/freshness.ts; the market list,
 * shared/scope/scope.ts), and for tests' reference queries over raw facts. Every other reader uses `sqlRows`.
 */
export async function queryRows<T>(db: Db, text: string, params: unknown[] = []): Promise<T[]> {
  return (await db.$client.query(text, params)) as T[];
}
