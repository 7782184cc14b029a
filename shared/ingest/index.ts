// NDJSON ingest: read lines, validate, write in batched transactions, report per line what was
// skipped and per type what changed. Runtime-neutral (Node scripts and workerd): no fs, no Buffer.
//
// The client must be ONE connection (pg.Client, a checked-out pool client, Neon's Client): each
// batch runs BEGIN ... COMMIT through it.
import type { Queryable } from '../db/queryable';
import { isDataError, runBatch, type BatchResult } from './write/batch';
import { deferIndexes, restoreDeferredIndexes } from './bulk/deferred-indexes';
import { batchLimits, parseBatches, type ParsedBatch } from './format/batches';
import { rebuildRollups } from './bulk/rebuild';
import { RECORD_TYPES, type RecordType } from './format/records';
import { mergeStagedObservations } from './bulk/staged-observations';
import {
  emptyCounts,
  type DerivedCounts,
  type IngestOptions,
  type IngestSummary,
  type Item,
  type LineError,
  type TypeCounts,
} from './write/types';
import { advanceWatermark } from './write/watermark';

export { RECORD_SCHEMAS, RECORD_TYPES, ingestRecord, type IngestRecord, type RecordOf, type RecordType } from './format/records';
export { parseLine } from './format/parse';
export { batchLimits, packBatch, parseBatches, unpackBatch, type PackedBatch, type ParsedBatch } from './format/batches';
export type { CopyFrom, DerivedCounts, IngestOptions, IngestProgress, IngestSummary, LineError, TypeCounts } from './write/types';

const TABLE_OF: Record<RecordType, string> = {
  country: 'countries',
  language: 'languages',
  city: 'cities',
  discover_profile: 'discover_profiles',
  publisher: 'publishers',
  entity: 'entities',
  hierarchy_node: 'hierarchy_nodes',
  article: 'articles',
  observation: 'observations',
  trend: 'trends',
  trend_article: 'trend_articles',
  trend_edge: 'trend_edges',
  project: 'projects',
  tracking_list: 'tracking_lists',
  tracking_list_item: 'tracking_list_items',
};

/**
 * Refreshes planner statistics of the tables a run changed: after a bulk load the API's queries
 * would otherwise be planned on empty-table estimates (PGlite has no autovacuum at all). A table is
 * analyzed when it never was, or when what changed since (the server's count, or this run's where the
 * server keeps none, as PGlite) passes autovacuum's threshold: 50 rows and 10% of the table. So an
 * hourly run pays no ANALYZE of tables a thousand times its size. Best effort: a role that may not
 * ANALYZE still gets its data loaded. `analyzed`: tables the run analyzed after its last write to them
 * (the deferred indexes' tables, when they were recreated).
 */
async function analyzeChanged(client: Queryable, s: IngestSummary, analyzed: Set<string>): Promise<void> {
  const changed = changedRows(s.byType, s.derived);
  for (const table of analyzed) changed.delete(table);
  if (changed.size === 0) return;
  const { rows } = await client
    .query<{ name: string; tuples: number; mods: number }>(
      `SELECT c.relname AS name, c.reltuples::float8 AS tuples, coalesce(st.n_mod_since_analyze, 0)::float8 AS mods
       FROM pg_class c LEFT JOIN pg_stat_user_tables st ON st.relid = c.oid
       WHERE c.relname = ANY($1::text[]) AND pg_table_is_visible(c.oid)`,
      [[...changed.keys()]],
    )
    .catch(() => ({ rows: [] as { name: string; tuples: number; mods: number }[] }));
  const stats = new Map(rows.map((r) => [r.name, r]));
  const due = [...changed].filter(([table, n]) => {
    const st = stats.get(table);
    return !st || st.tuples < 0 || Math.max(Number(st.mods), n) > ANALYZE_BASE + ANALYZE_SHARE * Number(st.tuples);
  });
  await analyzeTables(
    client,
    due.map(([table]) => table),
  );
}

/** Autovacuum's analyze threshold (autovacuum_analyze_threshold, autovacuum_analyze_scale_factor). */
const ANALYZE_BASE = 50;
const ANALYZE_SHARE = 0.1;

/** Rows each table gained, changed or lost, by the counts of a run or a batch (record types' own tables and derived ones). */
function changedRows(byType: Partial<Record<RecordType, TypeCounts>>, derived: Record<string, DerivedCounts>): Map<string, number> {
  const rows = new Map<string, number>();
  const add = (table: string, n: number) => n > 0 && rows.set(table, (rows.get(table) ?? 0) + n);
  for (const [type, c] of Object.entries(byType)) if (c) add(TABLE_OF[type as RecordType], c.inserted + c.updated);
  for (const [table, d] of Object.entries(derived)) add(table, d.inserted + d.updated + d.deleted);
  return rows;
}

/** The tables that counts of a run or a batch say changed. */
export function changedTables(byType: Partial<Record<RecordType, TypeCounts>>, derived: Record<string, DerivedCounts>): string[] {
  return [...changedRows(byType, derived).keys()].sort();
}

/** ANALYZE, best effort (a role that may not still gets its data loaded). */
export async function analyzeTables(client: Queryable, tables: string[]): Promise<void> {
  if (tables.length === 0) return;
  await client.query(`ANALYZE ${[...tables].sort().join(', ')}`).catch(() => undefined);
}

const DEFAULT_MAX_ERRORS = 1000;

/** Parses and writes the lines (one thread; see ingestBatches for lines parsed elsewhere). */
export function ingest(
  client: Queryable,
  lines: AsyncIterable<string> | Iterable<string>,
  opts: IngestOptions = {},
): Promise<IngestSummary> {
  return ingestBatches(client, parseBatches(lines, batchLimits(opts)), opts);
}

/**
 * Writes parsed batches (parseBatches, here or in another thread: scripts/lib/parse-thread.ts), each
 * in one transaction, then rebuilds what the run's mode leaves to its end. A batch's size is set where
 * it is parsed (batchLimits(opts)).
 */
export async function ingestBatches(
  client: Queryable,
  batches: AsyncIterable<ParsedBatch>,
  opts: IngestOptions = {},
): Promise<IngestSummary> {
  const started = Date.now();
  const rollups = (opts.rollups ?? 'incremental') === 'incremental';
  const maxErrors = opts.maxErrors ?? DEFAULT_MAX_ERRORS;
  const summary: IngestSummary = {
    read: 0,
    loaded: 0,
    skipped: 0,
    errors: [],
    changed: 0,
    seconds: 0,
    derived: {},
    byType: Object.fromEntries(RECORD_TYPES.map((t) => [t, emptyCounts()])) as IngestSummary['byType'],
  };
  let written = 0;
  /** The newest observation hour the run committed (epoch ms): it moves the data watermark at the end. */
  let newestHour = -Infinity;

  // Keeps the first `maxErrors` by line number: parse errors of the next batch can arrive before the
  // database's verdicts on the batch being written, so arrival order is not line order.
  const byLine = (a: LineError, b: LineError) => a.line - b.line;
  const fail = (e: LineError) => {
    summary.skipped++;
    summary.errors.push(e);
    if (summary.errors.length > 2 * maxErrors) summary.errors = summary.errors.sort(byLine).slice(0, maxErrors);
  };

  const addDerived = (table: string, d: { inserted: number; updated: number; deleted?: number }) => {
    const into = (summary.derived[table] ??= { inserted: 0, updated: 0, deleted: 0 });
    into.inserted += d.inserted;
    into.updated += d.updated;
    into.deleted += d.deleted ?? 0;
    summary.changed += d.inserted + d.updated + (d.deleted ?? 0);
  };

  const merge = (r: BatchResult, batch: Item[]) => {
    const size = batch.length;
    r.errors.sort((a, b) => a.line - b.line).forEach(fail);
    const failed = new Set(r.errors.map((e) => e.line));
    for (const { line, record } of batch) {
      if (record.type === 'observation' && !failed.has(line)) newestHour = Math.max(newestHour, Date.parse(record.hour));
    }
    summary.loaded += size - r.errors.length;
    for (const [type, c] of Object.entries(r.counts)) {
      const into = summary.byType[type as keyof typeof summary.byType];
      into.loaded += c.loaded;
      into.inserted += c.inserted;
      into.updated += c.updated;
      into.unchanged += c.unchanged;
      summary.changed += c.inserted + c.updated;
    }
    for (const [table, d] of Object.entries(r.derived)) addDerived(table, d);
  };

  const flush = async (batch: Item[]) => {
    if (batch.length === 0) return;
    written++;
    try {
      merge(await runBatch(client, batch, rollups, opts.copyFrom), batch);
    } catch (e) {
      if (!isDataError(e)) throw e;
      // Something in the batch broke a constraint the checks did not foresee: the batch was rolled
      // back; redo it line by line so only the offending lines are skipped.
      for (const item of batch) {
        try {
          merge(await runBatch(client, [item], rollups, opts.copyFrom), [item]);
        } catch (err) {
          if (!isDataError(err)) throw err;
          fail({ line: item.line, reason: `database: ${(err as Error).message}` });
        }
      }
    }
    opts.onProgress?.({
      read: summary.read,
      loaded: summary.loaded,
      skipped: summary.skipped,
      batches: written,
      seconds: (Date.now() - started) / 1000,
    });
  };

  // The writer's first step, while the first batch is parsed (no await may come before the input is
  // iterated): what an interrupted bulk load left behind is finished (its staged hours merged, counted
  // as derived rows of observations; its dropped indexes recreated); a bulk load drops its own.
  const prepareIndexes = async () => {
    const leftover = await mergeStagedObservations(client);
    if (leftover.inserted + leftover.updated > 0) addDerived('observations', leftover);
    await restoreDeferredIndexes(client);
    if (!rollups) await deferIndexes(client);
  };

  // One batch is written while the next one is parsed: the database and the parser each keep a core.
  // At most two batches are held here (bounded memory); batches still commit one after the other, in order.
  let writing: Promise<void> = prepareIndexes();
  writing.catch(() => undefined); // awaited (and rethrown) by the first submit or at the end
  const submit = async (b: Item[]) => {
    await writing;
    writing = flush(b);
    writing.catch(() => undefined); // awaited (and rethrown) by the next submit or at the end
  };

  const readAll = async () => {
    for await (const batch of batches) {
      summary.read += batch.read;
      batch.errors.forEach(fail);
      if (batch.items.length > 0) await submit(batch.items);
    }
  };
  try {
    await readAll();
  } finally {
    // Whatever ended the input, the batch in flight finishes before the caller may close the client.
    await writing.catch(() => undefined);
  }
  await writing;
  if (!rollups) {
    // The bulk batches' hours, staged: what they inserted and changed is known once they are merged.
    const merged = await mergeStagedObservations(client);
    const counts = summary.byType.observation;
    counts.inserted += merged.inserted;
    counts.updated += merged.updated;
    counts.unchanged -= merged.inserted + merged.updated;
    summary.changed += merged.inserted + merged.updated;
  }
  // Skipped per batch: rebuilt from the source tables in one set-based pass (it ANALYZEs them), which
  // also recreates the deferred indexes.
  // The deferred indexes are recreated after the last batch: their tables are analyzed then, not again below.
  const analyzed = new Set<string>();
  if (!rollups && summary.changed > 0) {
    await rebuildRollups(client, opts.onRebuildStep, {
      lane: opts.rebuildLane,
      restoreIndexes: true,
      analyzed,
      feedWindowsAt: opts.now ?? new Date(),
    });
  } else if (!rollups) await restoreDeferredIndexes(client, analyzed);
  if (Number.isFinite(newestHour)) await advanceWatermark(client, new Date(newestHour), opts.now ?? new Date(), opts.announce);
  if (opts.analyze !== false) await analyzeChanged(client, summary, analyzed);
  summary.errors = summary.errors.sort(byLine).slice(0, maxErrors);
  summary.seconds = (Date.now() - started) / 1000;
  return summary;
}
