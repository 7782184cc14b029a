// The bench-scale NDJSON straight from the project's generator (scripts/generate), as lines.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = join(import.meta.dirname, '..', '..');
/** Fixed so that every run loads the same bytes and the windows end at the data's "now". */
export const BENCH_NOW = '2026-03-01T12:00:00Z';
export const BENCH_SEED = 1;

/**
 * Lines of `generate --scale <scale> --seed 1 --now BENCH_NOW`; with `limit`, the first `limit`
 * lines only (the generator is stopped). The stream is consumed by whoever iterates it.
 */
export async function* generatedLines(scale: string, limit = Number.POSITIVE_INFINITY): AsyncGenerator<string> {
  const child = spawn(
    join(ROOT, 'node_modules', '.bin', 'tsx'),
    [join(ROOT, 'scripts/generate/index.ts'), '--scale', scale, '--seed', String(BENCH_SEED), '--now', BENCH_NOW],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const rl = createInterface({ input: child.stdout, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const line of rl) {
      if (n >= limit) break;
      n++;
      yield line;
    }
  } finally {
    rl.close();
    if (child.exitCode === null) child.kill('SIGTERM');
  }
  const code = await exited;
  if (limit === Number.POSITIVE_INFINITY && code !== 0) throw new Error(`generator exited with ${code}`);
}

/** The first `n` lines in memory (for timed runs that must not include generation). */
export async function firstLines(scale: string, n: number): Promise<string[]> {
  const out: string[] = [];
  for await (const line of generatedLines(scale, n)) out.push(line);
  return out;
}
