// One run of the drop: the object streamed from the bucket in chunks, each chunk one batch
// transaction (runBatch) that also advances the ledger, until the file ends or the invocation's
// budget does (docs/INGEST.md "The drop"). Runtime-neutral: the bucket is a minimal interface.
import type { Queryable } from '../../db/queryable';
import { isDataError, runBatch, type BatchResult } from '../write/batch';
import { batchLimits } from '../format/batches';
import { restoreDeferredIndexes } from '../bulk/deferred-indexes';
import { analyzeTables, changedTables } from '../index';
import { parseLine } from '../format/parse';
import { inTransaction } from '../write/sql';
import { mergeStagedObservations } from '../bulk/staged-observations';
import type { Item, LineError } from '../write/types';
import { advanceWatermark } from '../write/watermark';
import { advanceRun, failRun, finishRun, markRunning, type Run, type Step } from './ledger';
import { isUnreadable, readLines, sniff, type Format, type Line } from './lines';

/** The part of an R2 bucket binding the drop reads. */
export interface DropBucket {
  get(
    key: string,
    options?: { onlyIf?: { etagMatches?: string }; range?: { offset: number } },
  ): Promise<{ etag: string; size: number; body?: ReadableStream<Uint8Array> } | null>;
}

export type Outcome =
  | { state: 'done'; run: Run }
  | { state: 'failed'; reason: string; deadLetter: boolean }
  | { state: 'paused'; linesDone: number };

export interface ApplyOptions {
  /** Stop starting chunks once this many ms have passed since `started` (the invocation's wall budget). */
  budgetMs: number;
  started: number;
  /** The run's clock (the watermark's "hour still under way"). */
  now: Date;
  /** One JSON log line per start, chunk and end. */
  log: (msg: string, fields: Record<string, unknown>) => void;
  batchSize?: number;
  /** The push streams' change signal (shared/streams/signal.ts), told once the run's end has committed. Never throws. */
  announce?: () => Promise<void>;
}

/** How many leading lines decide "not NDJSON": if none of them is a JSON object, the file is not one. */
const SNIFF_LINES = 100;

interface Chunk {
  items: Item[];
  parseErrors: LineError[];
  /** Non-blank lines of the chunk, per line number (parse errors included). */
  lines: number[];
  last: Line;
}

const notJson = (reason: string) => reason.startsWith('invalid JSON') || reason === 'a line must be a JSON object';

async function* chunks(lines: AsyncIterable<Line>, skipTo: number, limits: { lines: number; chars: number }): AsyncGenerator<Chunk> {
  let chunk: Chunk | null = null;
  let chars = 0;
  for await (const line of lines) {
    if (line.number <= skipTo) continue;
    chunk ??= { items: [], parseErrors: [], lines: [], last: line };
    chunk.last = line;
    const text = line.text.trim();
    if (text !== '') {
      chunk.lines.push(line.number);
      const parsed = parseLine(text);
      if (parsed.ok) chunk.items.push({ line: line.number, record: parsed.record });
      else chunk.parseErrors.push({ line: line.number, reason: parsed.reason });
      chars += text.length;
    }
    if (chunk.items.length >= limits.lines || chars >= limits.chars) {
      yield chunk;
      chunk = null;
      chars = 0;
    }
  }
  if (chunk) yield chunk;
}

function newestHourOf(items: Item[], failed: Set<number>): number {
  let newest = -Infinity;
  for (const { line, record } of items)
    if (record.type === 'observation' && !failed.has(line)) newest = Math.max(newest, Date.parse(record.hour));
  return newest;
}

function changedOf(r: BatchResult): number {
  let n = 0;
  for (const c of Object.values(r.counts)) n += (c?.inserted ?? 0) + (c?.updated ?? 0);
  for (const d of Object.values(r.derived)) n += d.inserted + d.updated + d.deleted;
  return n;
}

/** Applies `run` from its last committed line; the caller holds the run lock (one run at a time per database). */
export async function applyRun(db: Queryable, bucket: DropBucket, run: Run, opts: ApplyOptions): Promise<Outcome> {
  const fields = { object_key: run.object_key, run_id: run.id, etag: run.etag };
  const fail = async (reason: string, deadLetter: boolean): Promise<Outcome> => {
    await failRun(db, run.id, reason);
    opts.log('ingest end', { ...fields, state: 'failed', reason, lines_done: run.lines_done });
    return { state: 'failed', reason, deadLetter };
  };
  // A plain file resumes with a range read from its last chunk boundary; gzip is inflated from the start.
  const ranged = run.format === 'ndjson' && run.resume_byte > 0;
  const object = await bucket.get(run.object_key, {
    onlyIf: { etagMatches: run.etag },
    ...(ranged && { range: { offset: run.resume_byte } }),
  });
  if (!object) return fail('object not found: deleted before it was loaded', true);
  if (!object.body) return fail(`superseded: the key holds another version now (etag ${object.etag})`, false);

  let format: Format;
  let lines: AsyncGenerator<Line>;
  try {
    const sniffed = ranged ? { format: 'ndjson' as const, stream: object.body } : await sniff(object.body);
    format = sniffed.format;
    lines = readLines(sniffed.stream, format, ranged ? run.resume_byte : 0, ranged ? run.resume_line : 0);
  } catch (e) {
    if (isUnreadable(e)) return fail((e as Error).message, true);
    throw e;
  }
  if (run.state === 'queued') {
    await markRunning(db, run.id, format);
    opts.log('ingest start', { ...fields, size: run.size, format, event_time: run.event_time });
  } else {
    await markRunning(db, run.id, format);
    opts.log('ingest resume', { ...fields, format, lines_done: run.lines_done, attempt: run.attempts + 1 });
  }
  // What an interrupted CLI bulk load left behind is finished first (as every ingest run does).
  await mergeStagedObservations(db);
  await restoreDeferredIndexes(db);

  let done = run.lines_done;
  /** A fresh run's first chunk decides whether the file is NDJSON at all. */
  let first = done === 0;
  let chunksNow = 0;
  const step = async (tx: Queryable, to: number, c: Chunk, written: Item[], r: BatchResult | null, carried: LineError[], end: boolean) => {
    const inRange = (line: number) => line > done && line <= to;
    const parseErrors = c.parseErrors.filter((e) => inRange(e.line));
    const s: Step = {
      from: done,
      to,
      resume: end && format === 'ndjson' ? { byte: c.last.end, line: c.last.number } : undefined,
      read: c.lines.filter(inRange).length,
      loaded: written.length - (r?.errors.length ?? 0),
      errors: [...parseErrors, ...carried, ...(r?.errors ?? [])].sort((a, b) => a.line - b.line),
      changed: r ? changedOf(r) : 0,
      chunk: end,
      newestHour: r ? newestHourOf(written, new Set(r.errors.map((e) => e.line))) : -Infinity,
      tables: r ? changedTables(r.counts, r.derived) : [],
    };
    await advanceRun(tx, run.id, s);
  };

  const limits = batchLimits({ batchSize: opts.batchSize });
  try {
    for await (const c of chunks(lines, done, limits)) {
      // At least one chunk per invocation, so that a run always moves.
      if (chunksNow > 0 && Date.now() - opts.started >= opts.budgetMs) {
        opts.log('ingest pause', { ...fields, lines_done: done, budget_ms: opts.budgetMs });
        return { state: 'paused', linesDone: done };
      }
      if (first) {
        first = false;
        const reasons = new Map(c.parseErrors.map((e) => [e.line, e.reason]));
        const head = c.lines.slice(0, SNIFF_LINES);
        const reason = head.length > 0 && head.every((line) => notJson(reasons.get(line) ?? '')) ? reasons.get(head[0]!) : undefined;
        if (reason) return fail(`not NDJSON: none of the first ${head.length} lines is a JSON object (line ${head[0]}: ${reason})`, true);
      }
      chunksNow++;
      const chunkStarted = Date.now();
      const before = done;
      let loaded = 0;
      const carried: LineError[] = [];
      const end = c.last.number;
      if (c.items.length > 0) {
        try {
          const r = await runBatch(db, c.items, true, undefined, (r) => step(db, end, c, c.items, r, [], true));
          loaded += c.items.length - r.errors.length;
          done = end;
        } catch (e) {
          if (!isDataError(e)) throw e;
          // As the CLI: a constraint the checks did not foresee; redone line by line, only the offending lines skipped.
          for (const [k, item] of c.items.entries()) {
            const last = k === c.items.length - 1;
            const to = last ? end : item.line;
            try {
              const r = await runBatch(db, [item], true, undefined, (r) => step(db, to, c, [item], r, carried.slice(), last));
              carried.length = 0;
              loaded += 1 - r.errors.length;
              done = to;
            } catch (err) {
              if (!isDataError(err)) throw err;
              carried.push({ line: item.line, reason: `database: ${(err as Error).message}` });
            }
          }
        }
      }
      if (done < end) {
        // Lines with nothing to write (bad or blank lines, a redo's last line that failed): the ledger alone moves.
        await inTransaction(db, 'BEGIN', () => step(db, end, c, [], null, carried, true));
        carried.length = 0;
        done = end;
      }
      opts.log('ingest chunk', {
        ...fields,
        lines: `${before + 1}-${end}`,
        loaded,
        bad: c.parseErrors.length + c.items.length - loaded,
        duration_ms: Date.now() - chunkStarted,
      });
    }
  } catch (e) {
    if (isUnreadable(e)) return fail((e as Error).message, true);
    throw e;
  }

  // The end: state done and the watermark moved in one transaction (the CLI moves it once its run ends).
  const finished = await inTransaction(db, 'BEGIN', async () => {
    const row = await finishRun(db, run.id);
    if (row.newest_hour) await advanceWatermark(db, new Date(row.newest_hour), opts.now);
    return row;
  });
  await opts.announce?.();
  await analyzeTables(db, finished.changed_tables);
  const { rows } = await db.query<Run & { seconds: number }>(
    `SELECT id::text, object_key, read, loaded, skipped, lines_done, extract(epoch FROM finished_at - started_at)::float8 AS seconds
     FROM ingest_runs WHERE id = $1`,
    [run.id],
  );
  const final = rows[0]!;
  opts.log('ingest end', {
    ...fields,
    state: 'done',
    read: final.read,
    loaded: final.loaded,
    skipped: final.skipped,
    seconds: final.seconds,
  });
  return { state: 'done', run: { ...run, ...final, state: 'done' } };
}
