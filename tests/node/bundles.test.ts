// Every deployed Worker as `wrangler deploy` bundles it: within its gzip budget, holding only its own
// area's routes, and answering its first request in workerd (the lazily loaded routes, the zod
// locale and ajv aliases and the minified names work in the shipped bundle, not only in the sources),
// keyless and keyed (the demo data behind a local gateway), with its environment's compatibility
// flags: the request Workers opt out of Node compatibility (wrangler.toml).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BUDGET_KIB, bundle, keyedProbe, kib, NO_SERVICES, overBudget, PROBES, routesIn, WORKERS } from '../../scripts/lib/bundles';
import { startDemoServices, type DemoServices } from '../../scripts/lib/demo-stack';
import { runScript } from '../../scripts/lib/worker';

const dir = mkdtempSync(join(tmpdir(), 'bundles-'));
let services: DemoServices;
beforeAll(async () => {
  services = await startDemoServices({
    server: inject('adminDatabaseUrl').replace(/\/[^/]*$/, ''),
    redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    database: `bundles_test_${inject('runId')}`, // global teardown drops leftovers by the run id suffix
  });
}, 150_000);
afterAll(async () => {
  await services?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(WORKERS)('the %s Worker bundle', (name) => {
  const built = () => bundle(name, join(dir, name));
  let cached: ReturnType<typeof built> | undefined;
  const get = () => (cached ??= built());

  it(`stays within its gzip budget and holds only its own routes`, () => {
    const b = get();
    expect(overBudget(b, name), `${kib(b.gzip)} gzip, budget ${BUDGET_KIB[name]} KiB`).toBe(false);
    expect(routesIn(b.code, name).verdict).not.toMatch(/FOREIGN|MISSING/);
    // The aliased-out code is not in the bundle: one zod locale, no ajv.
    expect(b.packages.map(([pkg]) => pkg)).not.toContain('ajv');
    expect(b.code).not.toContain('Ungültige Eingabe');
  });

  // The jobs Worker serves no routes: its bundle is checked above, its consumer by the Worker tests.
  const probe = PROBES[name];
  if (probe)
    it('answers its first request in workerd', async () => {
      const b = get();
      const worker = await runScript(b.script, b.dir, NO_SERVICES, b.flags);
      try {
        const res = await worker.mf.dispatchFetch(new URL(probe!.path, worker.url), { method: probe!.method });
        const text = await res.text();
        expect(res.status, text.slice(0, 300)).toBe(probe!.status);
        if (probe!.status === 401) expect(JSON.parse(text).detail).toBeTruthy();
      } finally {
        await worker.dispose();
      }
    });

  // A refused parameter reaches no read: a fresh isolate's 422 loads no client and sends nothing, not
  // even the watermark read (issue 47).
  if (name === 'public')
    it('answers a 422 in a fresh isolate without a round trip', async () => {
      const b = get();
      const lines: string[] = [];
      const worker = await runScript(b.script, b.dir, { ...NO_SERVICES, LOG_LEVEL: 'info' }, b.flags, (line) => lines.push(line));
      try {
        const res = await worker.mf.dispatchFetch(new URL('/public/platform-profile', worker.url));
        expect(res.status, await res.text()).toBe(422);
        // The request's log line is written after the answer.
        const logged = () => lines.map((l) => l.slice(l.indexOf('{'))).find((l) => l.includes('"msg":"request"'));
        for (let i = 0; i < 50 && !logged(); i++) await new Promise((r) => setTimeout(r, 100));
        expect(JSON.parse(logged() ?? '{}')).toMatchObject({ status: 422, round_trips: 0, calls: 0 });
      } finally {
        await worker.dispose();
      }
    });

  if (probe)
    it('answers a keyed first request on the demo data', async () => {
      const b = get();
      const keyed = keyedProbe(name, services.keys.find((k) => k.name === 'full')!.key)!;
      const worker = await runScript(b.script, b.dir, services.bindings, b.flags);
      try {
        const res = await worker.mf.dispatchFetch(new URL(keyed.path, worker.url), keyed);
        const text = await res.text();
        expect(res.status, text.slice(0, 300)).toBe(200);
        // The answer carries data, not an empty shell: the MCP tool call's result is not an error.
        expect(text).not.toMatch(/"isError":true/);
      } finally {
        await worker.dispose();
      }
    });
});
