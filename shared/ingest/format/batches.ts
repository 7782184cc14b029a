// Input lines -> parsed batches: what one transaction writes, with the lines that failed to parse.
// Runtime-neutral: ingest() parses in its own thread; the CLI and the bench loader parse in a worker
// thread (scripts/lib/parse-thread.ts) and send each batch packed (`packBatch`) to the writer.
import { parseLine } from './parse';
import type { RecordOf } from './records';
import type { IngestOptions, Item, LineError } from '../write/types';

export interface ParsedBatch {
  /** Valid records in line order. */
  items: Item[];
  /** Lines that failed to parse or validate. */
  errors: LineError[];
  /** Non-blank lines read into this batch (valid or not). */
  read: number;
}

export interface BatchLimits {
  lines: number;
  chars: number;
}

const DEFAULT_BATCH = 5000;
const DEFAULT_BATCH_CHARS = 4_000_000;
// A bulk load's batches write the lines only (no roll-up): four times larger, they pay the per-batch
// statements a quarter as often (docs/INGEST.md "Bulk loads": the batches of the first million bench lines).
const DEFAULT_BULK_BATCH = 20_000;
const DEFAULT_BULK_BATCH_CHARS = 16_000_000;

/** A batch ends at this many records or characters of lines (IngestOptions.batchSize, maxBatchChars). */
export function batchLimits(opts: Pick<IngestOptions, 'batchSize' | 'maxBatchChars' | 'rollups'>): BatchLimits {
  const incremental = (opts.rollups ?? 'incremental') === 'incremental';
  return {
    lines: Math.max(1, opts.batchSize ?? (incremental ? DEFAULT_BATCH : DEFAULT_BULK_BATCH)),
    chars: opts.maxBatchChars ?? (incremental ? DEFAULT_BATCH_CHARS : DEFAULT_BULK_BATCH_CHARS),
  };
}

const YIELD_EVERY = 50;
/** A macrotask turn (setImmediate in Node; workerd has only timers, where a 0 ms timer does the same). */
const yieldToIo = (): Promise<void> =>
  new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)));

/** Parses the lines into batches of at most `limits`; the last one may hold only errors, or nothing. */
export async function* parseBatches(lines: AsyncIterable<string> | Iterable<string>, limits: BatchLimits): AsyncGenerator<ParsedBatch> {
  let batch: ParsedBatch = { items: [], errors: [], read: 0 };
  let chars = 0;
  let lineNo = 0;
  for await (const raw of lines) {
    lineNo++;
    // An in-memory input never waits on I/O: let the writer's replies in now and then.
    if (lineNo % YIELD_EVERY === 0) await yieldToIo();
    const line = raw.trim();
    if (line === '') continue;
    batch.read++;
    const parsed = parseLine(line);
    if (!parsed.ok) {
      batch.errors.push({ line: lineNo, reason: parsed.reason });
      continue;
    }
    batch.items.push({ line: lineNo, record: parsed.record });
    chars += line.length;
    if (batch.items.length >= limits.lines || chars >= limits.chars) {
      yield batch;
      batch = { items: [], errors: [], read: 0 };
      chars = 0;
    }
  }
  yield batch;
}

/**
 * A batch as one thread posts it to another. Observations (~95% of a bench file) travel as columns:
 * a structured clone of 20,000 small objects costs the receiving thread about as much as parsing
 * their lines did, arrays of strings and numbers a quarter of that.
 */
export interface PackedBatch {
  others: Item[];
  observations: {
    line: Int32Array;
    url_id: string[];
    country: string[];
    language: string[];
    hour: string[];
    impressions: Float64Array;
    position: Float64Array;
  };
  errors: LineError[];
  read: number;
}

export function packBatch(batch: ParsedBatch): PackedBatch {
  const observations = batch.items.filter((i): i is Item<'observation'> => i.record.type === 'observation');
  const column = <K extends keyof RecordOf<'observation'>>(key: K) => observations.map((i) => i.record[key]);
  return {
    others: batch.items.filter((i) => i.record.type !== 'observation'),
    observations: {
      line: Int32Array.from(observations, (i) => i.line),
      url_id: column('url_id'),
      country: column('country'),
      language: column('language'),
      hour: column('hour'),
      impressions: Float64Array.from(observations, (i) => i.record.impressions),
      position: Float64Array.from(observations, (i) => i.record.position),
    },
    errors: batch.errors,
    read: batch.read,
  };
}

/** The batch again, its items in line order. */
export function unpackBatch(packed: PackedBatch): ParsedBatch {
  const o = packed.observations;
  const observations: Item[] = Array.from(o.line, (line, k) => ({
    line,
    record: {
      type: 'observation',
      url_id: o.url_id[k],
      country: o.country[k],
      language: o.language[k],
      hour: o.hour[k],
      impressions: o.impressions[k],
      position: o.position[k],
    },
  }));
  return { items: mergeByLine(packed.others, observations), errors: packed.errors, read: packed.read };
}

/** Two lists in line order as one (a batch's redo line by line keeps each article before its hours). */
function mergeByLine(a: Item[], b: Item[]): Item[] {
  if (a.length === 0) return b;
  const out: Item[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(a[i]!.line < b[j]!.line ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}
