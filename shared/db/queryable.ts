// The one SQL surface shared by Node scripts and Workers: a node-postgres compatible client
// (`pg.Client`, Neon's `Pool`/`Client` over WebSocket). Used where a transaction is needed.
export interface QueryResultLike<R> {
  rows: R[];
  rowCount: number | null;
}

export interface Queryable {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<QueryResultLike<R>>;
}
