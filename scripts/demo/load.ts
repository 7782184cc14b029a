// Loads the demo data set through the product's own path: the generator's NDJSON into ingest.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Queryable } from '../../shared/db/queryable';
import { DEMO_SEED } from '../../shared/schemas/demo-ids';
import { ingest } from '../../shared/ingest/index';

export { DEMO_SEED } from '../../shared/schemas/demo-ids';

export async function loadDemoData(client: Queryable, now: Date, log: (line: string) => void) {
  const generator = spawn(
    'tsx',
    ['scripts/generate/index.ts', '--scale', 'demo', '--seed', String(DEMO_SEED), '--now', now.toISOString()],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<number>((resolve) => generator.on('close', (code) => resolve(code ?? 1)));
  // The database is empty and nothing reads it yet: roll-ups are built once at the end, not per batch.
  const summary = await ingest(client, createInterface({ input: generator.stdout, crlfDelay: Infinity }), { rollups: 'rebuild-at-end' });
  if ((await exited) !== 0) throw new Error('the demo generator failed');
  log(`demo data: ${summary.loaded} records loaded in ${summary.seconds.toFixed(1)} s`);
  if (summary.skipped) throw new Error(`demo data had ${summary.skipped} bad lines: ${JSON.stringify(summary.errors.slice(0, 3))}`);
}
