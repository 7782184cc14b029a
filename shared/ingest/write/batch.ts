// One batch = one transaction: checks, then every record type in dependency order, then the
// derived tables that depend on several types. Any failure rolls the whole batch back.
import type { Queryable } from '../../db/queryable';
import { refreshActivity } from '../../rollups/write-activity';
import { refreshEntities } from '../../entities/write';
import { hierarchyPlaces, syncHierarchy } from '../../trends/write-hierarchy';
import { refreshReach } from '../../db/write-plan-reads';
import { precheck } from './precheck';
import { inTransaction, RAISE_MEMORY } from './sql';
import { syncDimensions } from '../../rollups/write';
import type { RecordType } from '../format/records';
import { emptyGroups, type BatchContext, type CopyFrom, type DerivedCounts, type Item, type LineError, type TypeCounts } from './types';
import { writeArticles } from './articles';
import { writeEntities, writePublishers } from './content';
import { writeCities, writeCountries, writeDiscoverProfiles, writeLanguages } from './geo';
import { writeObservations } from './observations';
import { writeProjects, writeTrackingListItems, writeTrackingLists } from './tenants';
import { refreshTrendAggregates, writeHierarchy, writeTrendArticles, writeTrendEdges, writeTrends } from './trends';

const WRITERS: Record<RecordType, (ctx: BatchContext) => Promise<void>> = {
  country: writeCountries,
  language: writeLanguages,
  city: writeCities,
  discover_profile: writeDiscoverProfiles,
  publisher: writePublishers,
  entity: writeEntities,
  hierarchy_node: writeHierarchy,
  article: writeArticles,
  observation: writeObservations,
  trend: writeTrends,
  trend_article: writeTrendArticles,
  trend_edge: writeTrendEdges,
  project: writeProjects,
  tracking_list: writeTrackingLists,
  tracking_list_item: writeTrackingListItems,
};

/** Serializes concurrent ingests: derived deltas (market_days) assume one writer at a time. */
export const INGEST_LOCK = 7_420_113;

/**
 * The batch's opening statements in one simple query (one round trip instead of five; a Worker pays
 * each one to the database's region):
 * - the ingest lock;
 * - every ingest statement reaches stored rows by key. Fresh or bulk-loaded tables have no (or stale)
 *   statistics, and PGlite has no autovacuum to refresh them; the planner then picked full scans of
 *   observations per batch (quadratic loads). Penalizing seq scans keeps it on the keys;
 * - key lookups on big tables get huge cost estimates (`= ANY` selectivity guesses), which triggered
 *   JIT compilation, longer than the work itself (docs/INGEST.md "Bulk loads");
 * - the set-based steps sort and hash whole batches: the 4 MB default spilled them to disk.
 */
const BEGIN_BATCH = [
  'BEGIN',
  `SELECT pg_advisory_xact_lock(${INGEST_LOCK})`,
  'SET LOCAL enable_seqscan = off',
  'SET LOCAL jit = off',
  RAISE_MEMORY('work_mem', '64MB'),
].join('; ');

/**
 * A bulk load's batches do not wait for their commit to reach disk: a crash of the server loses at
 * most its last moments of batches (nothing is corrupted), and the load is rerun anyway, since its
 * roll-ups exist only once its end has rebuilt them (docs/BENCHMARKS.md "Ingest": the wait it saves).
 */
const NO_FLUSH_WAIT = 'SET LOCAL synchronous_commit = off';

export interface BatchResult {
  errors: LineError[];
  counts: Partial<Record<RecordType, TypeCounts>>;
  derived: Record<string, DerivedCounts>;
}

/**
 * `beforeCommit` runs last inside the batch's transaction, told what the batch wrote: a caller's own
 * bookkeeping (the drop's ledger, shared/ingest/drop) then commits or rolls back with the batch.
 */
export async function runBatch(
  db: Queryable,
  items: readonly Item[],
  rollups = true,
  copyFrom?: CopyFrom,
  beforeCommit?: (result: BatchResult) => Promise<void>,
): Promise<BatchResult> {
  const groups = emptyGroups();
  for (const item of items) (groups[item.record.type] as Item[]).push(item);
  const ctx: BatchContext = {
    db,
    rollups,
    // Only a bulk load's writers copy (its hours are staged, its articles new).
    copyFrom: rollups ? undefined : copyFrom,
    groups,
    errors: [],
    counts: {},
    derived: {},
    touchedTrends: new Set(),
    newTrendArticles: [],
    spanUrls: new Set(),
    lostSpanUrls: new Set(),
    hierarchyUrls: new Set(),
    entityTops: new Set(),
    topsBefore: new Map(),
    newMarkets: new Map(),
  };
  await inTransaction(db, rollups ? BEGIN_BATCH : `${BEGIN_BATCH}; ${NO_FLUSH_WAIT}`, async () => {
    await precheck(ctx);
    const hierarchy = rollups ? await hierarchyPlaces(db, ctx.groups) : null;
    for (const type of Object.keys(WRITERS) as RecordType[]) {
      if (ctx.groups[type].length > 0) await WRITERS[type](ctx);
    }
    await refreshTrendAggregates(ctx);
    // Last, so that it is exact whatever the record order (see shared/rollups/write.ts).
    if (rollups) {
      const touched = new Set([...ctx.groups.article.map((i) => i.record.id), ...ctx.groups.trend_article.map((i) => i.record.url_id)]);
      const changes = await syncDimensions(db, [...touched]);
      const joined = changes.filter((c) => c.sign > 0).map((c) => c.url_id);
      await refreshActivity(db, {
        grown: [...ctx.spanUrls],
        joined,
        removed: changes.filter((c) => c.sign < 0),
        lost: [...ctx.lostSpanUrls],
      });
      await refreshEntities(
        db,
        changes,
        ctx.groups.article.map((i) => i.record.id),
        [...ctx.spanUrls],
        ctx.entityTops,
      );
      await refreshReach(ctx);
    }
    if (hierarchy) await syncHierarchy(ctx, hierarchy);
    await beforeCommit?.({ errors: ctx.errors, counts: ctx.counts, derived: ctx.derived });
  });
  return { errors: ctx.errors, counts: ctx.counts, derived: ctx.derived };
}

/**
 * Postgres errors that one bad line can cause (data exceptions, constraint violations, program
 * limits such as an over-long indexed value). Anything else (connection loss, syntax) is not the
 * input's fault and aborts the run.
 */
export function isDataError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|23|54)/.test(code);
}
