// Public result types of an ingest run, and the per-batch state the writers share.
import type { Queryable } from '../../db/queryable';
import { RECORD_TYPES, type RecordOf, type RecordType } from '../format/records';

export interface TypeCounts {
  /** Lines of this type that passed validation and were written (changed or not). */
  loaded: number;
  inserted: number;
  updated: number;
  unchanged: number;
}

export interface DerivedCounts {
  inserted: number;
  updated: number;
  deleted: number;
}

export interface LineError {
  /** 1-based line number in the input. */
  line: number;
  reason: string;
}

export interface IngestSummary {
  /** Non-blank lines read. */
  read: number;
  loaded: number;
  skipped: number;
  /** The first `maxErrors` skipped lines (all of them are counted in `skipped`). */
  errors: LineError[];
  byType: Record<RecordType, TypeCounts>;
  /** Tables maintained from the records: url_profiles, market_days, entities, ... */
  derived: Record<string, DerivedCounts>;
  /** Rows inserted, updated or deleted in any table; 0 when the input was already loaded. */
  changed: number;
  seconds: number;
}

export interface IngestProgress {
  read: number;
  loaded: number;
  skipped: number;
  batches: number;
  seconds: number;
}

/** Runs `statement` (a `COPY ... FROM STDIN` in text format) with `data` as its rows, on the connection of the batch's transaction. */
export type CopyFrom = (statement: string, data: string) => Promise<void>;

export interface IngestOptions {
  /** Records per transaction (default 5000; 20000 when roll-ups are rebuilt at the end). */
  batchSize?: number;
  /** Also flush a batch once its lines reach this many characters (default 4 MB; 16 MB when roll-ups are rebuilt at the end). */
  maxBatchChars?: number;
  /** How many line errors to keep in `summary.errors` (default 1000). */
  maxErrors?: number;
  onProgress?: (progress: IngestProgress) => void;
  /** ANALYZE the tables that changed once the input is loaded (default true). */
  analyze?: boolean;
  /**
   * How the dimension roll-ups (url_dimensions, dim_hours, dim_days, url_spans) follow the load.
   * `incremental` (default): kept exact inside every batch. `rebuild-at-end`: batches skip them and
   * one rebuildRollups (shared/ingest/bulk/rebuild.ts) runs after the last batch; for bulk loads into a database that
   * nothing reads meanwhile (the roll-ups are stale until the run ends, then rebuilt in full).
   */
  rollups?: 'incremental' | 'rebuild-at-end';
  /** `rebuild-at-end`: a second connection to the database, so that the rebuild runs in two halves at once (shared/ingest/bulk/rebuild.ts `lane`). */
  rebuildLane?: Queryable;
  /**
   * `rebuild-at-end`: COPY on the ingest's own connection, where its driver speaks it (node-postgres:
   * scripts/lib/copy-from.ts). The batches' hours are then staged by one COPY each instead of an
   * INSERT over unnest (observations.ts), and their articles copied before their upsert
   * (articles.ts, sql.ts `upsert`).
   */
  copyFrom?: CopyFrom;
  /** `rebuild-at-end`: told each statement of the final rebuild and its time (it runs for minutes on the bench set). */
  onRebuildStep?: (line: string) => void;
  /**
   * The run's clock (default the wall clock): an hour that has not ended by then is not complete,
   * so it does not move the data watermark (watermark.ts).
   */
  now?: Date;
  /**
   * Called once the run's writes and its watermark committed: bumps the push streams' change signal
   * (shared/streams/signal.ts announcer). Never throws.
   */
  announce?: () => Promise<void>;
}

export interface Item<T extends RecordType = RecordType> {
  line: number;
  record: RecordOf<T>;
}

export type Groups = { [T in RecordType]: Item<T>[] };

/** State of one batch transaction: writers append counts and the work left for later steps. */
export interface BatchContext {
  db: Queryable;
  /** False when the run rebuilds the roll-ups at its end (IngestOptions.rollups). */
  rollups: boolean;
  /** IngestOptions.copyFrom in a bulk load (rollups false), otherwise none. */
  copyFrom?: CopyFrom;
  groups: Groups;
  errors: LineError[];
  counts: Partial<Record<RecordType, TypeCounts>>;
  derived: Record<string, DerivedCounts>;
  /** Trends whose article_count / first_seen_at / last_article_at must be recomputed in full. */
  touchedTrends: Set<string>;
  /** trend_articles rows inserted by this batch: added to their trends' aggregates incrementally. */
  newTrendArticles: { trend_id: string; url_id: string }[];
  /** URLs whose activity spans changed (their activity groups are refreshed at the end). */
  spanUrls: Set<string>;
  /** URLs whose activity spans lost hours (their activity groups are recomputed whole). */
  lostSpanUrls: Set<string>;
  /** URLs with a new url_profiles row (a new market): their hierarchy rows are recomputed (shared/trends/write-hierarchy.ts). */
  hierarchyUrls: Set<string>;
  /** Trending-top buckets (entity|country|hour) touched by the batch, recomputed at its end (shared/entities/write-tops.ts). */
  entityTops: Set<string>;
  /** Articles whose top-level categories the batch changed, with the ones they had before it (shared/db/write-plan-reads.ts). */
  topsBefore: Map<string, string[]>;
  /** Articles that gained profiles in the batch: their new 'CC:ll' markets (shared/db/write-plan-reads.ts). */
  newMarkets: Map<string, string[]>;
}

export function emptyGroups(): Groups {
  return Object.fromEntries(RECORD_TYPES.map((t) => [t, []])) as unknown as Groups;
}

export function emptyCounts(): TypeCounts {
  return { loaded: 0, inserted: 0, updated: 0, unchanged: 0 };
}

export function tally(ctx: BatchContext, type: RecordType, loaded: number, inserted: number, updated: number): void {
  const c = (ctx.counts[type] ??= emptyCounts());
  c.loaded += loaded;
  c.inserted += inserted;
  c.updated += updated;
  // Lines superseded by a later line with the same key in the batch count as unchanged.
  c.unchanged += loaded - inserted - updated;
}

export function derive(ctx: BatchContext, table: string, d: Partial<DerivedCounts>): void {
  const c = (ctx.derived[table] ??= { inserted: 0, updated: 0, deleted: 0 });
  c.inserted += d.inserted ?? 0;
  c.updated += d.updated ?? 0;
  c.deleted += d.deleted ?? 0;
}

/** Drops items from their group and records why; later checks and writers never see them. */
export function reject<T extends RecordType>(ctx: BatchContext, type: T, bad: Map<Item<T>, string>): void {
  if (bad.size === 0) return;
  for (const [item, reason] of bad) ctx.errors.push({ line: item.line, reason });
  ctx.groups[type] = (ctx.groups[type] as Item<T>[]).filter((i) => !bad.has(i)) as Groups[T];
}
