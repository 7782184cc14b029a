// Parameterised SQL for aggregates that read better as SQL than as a query builder.
// Cast counts to int/float8 in SQL: the driver returns bigint and numeric as strings.
import type { Db } from './client';

export async function queryRows<T>(db: Db, text: string, params: unknown[] = []): Promise<T[]> {
  return (await db.$client.query(text, params)) as T[];
}
