// The 3-second outlier of the public check (issue 47, item 4): a request that answers before a call
// it started has come back (a 422 while its `Data-As-Of` watermark read is in flight) used to leave
// that call to be cancelled with it. The call never settled, and the next request of the isolate
// that reads the watermark joined its flight (shared/cache/flights.ts) and waited out JOIN_WAIT_MS
// (3 s) before reading for itself: in `npm run bench -- routes`, the first cold public check after
// the refused category analytics took the whole wait with little database time (docs/BENCHMARKS.md
// "Routes", issue 47). Now every call a
// request starts is kept alive until it settles (shared/observability/round-trips.ts `settled`).
// The deployed public Worker's bundle in workerd (each request its own I/O context, as in
// production), the demo data behind a local gateway; the watermark read is held back by a lock on
// its table, so that the 422 always answers first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { JOIN_WAIT_MS } from '../../shared/cache/flights';
import { bundle } from '../../scripts/lib/bundles';
import { startDemoServices, type DemoServices } from '../../scripts/lib/demo-stack';
import { runScript, type RunningWorker } from '../../scripts/lib/worker';

const dir = mkdtempSync(join(tmpdir(), 'abandoned-'));
let services: DemoServices;
let worker: RunningWorker;

beforeAll(async () => {
  services = await startDemoServices({
    server: inject('adminDatabaseUrl').replace(/\/[^/]*$/, ''),
    redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    database: `abandoned_test_${inject('runId')}`, // global teardown drops leftovers by the run id suffix
  });
  const b = bundle('public', join(dir, 'public'));
  worker = await runScript(b.script, b.dir, { ...services.bindings, PUBLIC_RATE_LIMIT_PER_MINUTE: '100000' }, b.flags);
}, 150_000);

afterAll(async () => {
  await worker?.dispose();
  await services?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function timed(path: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await worker.mf.dispatchFetch(new URL(path, worker.url), { headers: { 'CF-Connecting-IP': '203.0.113.47' } });
  await res.text();
  return { status: res.status, ms: performance.now() - started };
}

describe('a call left behind by an answered request', () => {
  it('does not hold the next public check of the isolate for JOIN_WAIT_MS', async () => {
    await worker.restart(); // a new isolate: it holds no watermark yet, so its first data request reads one
    const locker = new pg.Client({ connectionString: services.databaseUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE data_watermark IN ACCESS EXCLUSIVE MODE');
      // Refused (no domain) while its watermark read waits on the lock.
      expect((await timed('/public/platform-profile')).status).toBe(422);
      await locker.query('COMMIT');
    } finally {
      await locker.end();
    }
    const check = await timed('/public/platform-profile?domain=citypost.co.uk');
    expect(check.status).toBe(200);
    // Its own calls take milliseconds here; the wait it used to join took JOIN_WAIT_MS.
    expect(check.ms).toBeLessThan(JOIN_WAIT_MS / 3);
  });
});
