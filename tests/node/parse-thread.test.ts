// Lines parsed in a worker thread (scripts/lib/parse-thread.ts, as `npm run ingest` and the bench
// loader parse) give the batches that parsing them in this thread gives: the same records, bad
// lines and counts, packed for the trip and unpacked in line order.
import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseInThread } from '../../scripts/lib/parse-thread';
import { type ParsedBatch, parseBatches } from '../../shared/ingest';

const GENERATED = spawnSync(
  join(import.meta.dirname, '../../node_modules/.bin/tsx'),
  ['scripts/generate/index.ts', '--scale', 'test', '--seed', '3', '--now', '2026-11-20T12:00:00Z'],
  {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  },
).stdout.split('\n');

async function collect(batches: AsyncIterable<ParsedBatch>): Promise<ParsedBatch[]> {
  const out: ParsedBatch[] = [];
  for await (const b of batches) out.push(b);
  return out;
}

describe('parsed in a worker thread', () => {
  it('gives the batches parsed here: records of every type, bad and blank lines, a repeated hour', async () => {
    const lines = GENERATED.slice(0, 4000);
    lines.splice(7, 0, '{not json', '', '   ', JSON.stringify({ type: 'unicorn' }), lines[3000]!);
    lines.splice(2500, 0, JSON.stringify({ type: 'observation', url_id: 'nope' }), lines[2400]!);
    const file = join(await mkdtemp(join(tmpdir(), 'parse-thread-')), 'mixed.ndjson');
    await writeFile(file, lines.join('\r\n'));
    const limits = { lines: 300, chars: 40_000 };

    const here = await collect(parseBatches(lines, limits));
    const { batches, bytesRead } = parseInThread({ file }, limits);
    const there = await collect(batches);

    expect(new Set(here.flatMap((b) => b.items.map((i) => i.record.type)))).toContain('observation');
    expect(new Set(here.flatMap((b) => b.items.map((i) => i.record.type))).size).toBeGreaterThan(5);
    expect(here.flatMap((b) => b.errors).map((e) => e.line)).toEqual([8, 11, 2501]);
    expect(here.length).toBeGreaterThan(10);
    expect(there).toEqual(here);
    expect(bytesRead()).toBeGreaterThan(0);
  });

  it('reports a source it cannot read', async () => {
    await expect(collect(parseInThread({ file: '/nonexistent/lines.ndjson' }, { lines: 10, chars: 1000 }).batches)).rejects.toThrow(
      /ENOENT/,
    );
  });

  it('stops its thread when the writer stops reading', async () => {
    const { batches } = parseInThread({ generate: { scale: 'test' } }, { lines: 100, chars: 1_000_000 });
    let taken = 0;
    for await (const b of batches) {
      expect(b.items).toHaveLength(100);
      if (++taken === 3) break;
    }
    expect(taken).toBe(3);
  });
});
