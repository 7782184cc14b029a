// The parser thread of scripts/lib/parse-thread.ts: reads its source, posts packed batches while it
// has credit (one more per batch the writer takes), then `done`.
import { createReadStream, type ReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parentPort, workerData } from 'node:worker_threads';
import { type BatchLimits, packBatch, parseBatches } from '../../shared/ingest/format/batches';
import { generatedLines } from '../bench/generate';
import { CREDIT, type LineSource, type ParserMessage } from './parse-thread';

const { source, limits } = workerData as { source: LineSource; limits: BatchLimits };
const port = parentPort!;
const post = (m: ParserMessage) => port.postMessage(m);

let credit = CREDIT;
let granted: (() => void) | null = null;
port.on('message', () => {
  credit++;
  granted?.();
});

function lines(): { lines: AsyncIterable<string>; bytesRead(): number } {
  if ('generate' in source) return { lines: generatedLines(source.generate.scale, source.generate.lines), bytesRead: () => 0 };
  const input = 'file' in source ? createReadStream(source.file) : process.stdin;
  return {
    lines: createInterface({ input, crlfDelay: Infinity }),
    bytesRead: () => ('file' in source ? (input as ReadStream).bytesRead : 0),
  };
}

async function run(): Promise<void> {
  const input = lines();
  for await (const batch of parseBatches(input.lines, limits)) {
    while (credit === 0) await new Promise<void>((resolve) => (granted = resolve));
    credit--;
    post({ batch: packBatch(batch), bytesRead: input.bytesRead() });
  }
  post({ done: true });
  port.close();
}

run().catch((e: unknown) => post({ error: e instanceof Error ? e.message : String(e) }));
