// Lines parsed in a worker thread, for the Node loaders (scripts/ingest.ts, the bench set's loader):
// the main thread only writes, so parsing no longer takes turns with the writer on one core. The worker
// (scripts/lib/parse-worker.ts) reads the source itself, parses batches of `limits` (parseBatches) and
// posts each one packed; it runs at most CREDIT batches ahead of the writer (bounded memory).
import { Worker } from 'node:worker_threads';
import { type BatchLimits, type PackedBatch, type ParsedBatch, unpackBatch } from '../../shared/ingest/format/batches';

/** A file, this process's stdin, or the first `lines` lines of a generated data set (scripts/generate). */
export type LineSource = { file: string } | { stdin: true } | { generate: { scale: string; lines?: number } };

export type ParserMessage = { batch: PackedBatch; bytesRead: number } | { done: true } | { error: string };

/** The worker is TypeScript: tsx's loader, inherited from a parent run by tsx or added (vitest, node). */
const TSX_LOADER = process.execArgv.some((a) => a.includes('tsx')) ? [] : ['--import', 'tsx'];

/** Batches parsed ahead of the one being written. */
export const CREDIT = 2;

export function parseInThread(source: LineSource, limits: BatchLimits): { batches: AsyncIterable<ParsedBatch>; bytesRead(): number } {
  let bytes = 0;
  async function* batches(): AsyncGenerator<ParsedBatch> {
    // Started on the first read, as a readline over the source would be.
    const worker = new Worker(new URL('./parse-worker.ts', import.meta.url), {
      workerData: { source, limits },
      execArgv: [...process.execArgv, ...TSX_LOADER],
      stdin: 'stdin' in source,
    });
    if ('stdin' in source) process.stdin.pipe(worker.stdin!);
    const queue: ParserMessage[] = [];
    let wake: (() => void) | null = null;
    const push = (m: ParserMessage) => {
      queue.push(m);
      wake?.();
    };
    worker.on('message', push);
    worker.on('error', (e) => push({ error: e.message }));
    worker.on('exit', (code) => push(code === 0 ? { done: true } : { error: `the parser thread exited with ${code}` }));
    try {
      for (;;) {
        if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        const m = queue.shift()!;
        if ('error' in m) throw new Error(m.error);
        if ('done' in m) return;
        bytes = m.bytesRead;
        worker.postMessage('more');
        yield unpackBatch(m.batch);
      }
    } finally {
      if ('stdin' in source) process.stdin.unpipe(worker.stdin!);
      await worker.terminate();
    }
  }
  return { batches: batches(), bytesRead: () => bytes };
}
