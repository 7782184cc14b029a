// Every deployed Worker as `wrangler deploy` bundles it: within its gzip budget, holding only its own
// area's routes, and answering its first request in workerd (the lazily loaded routes, the zod
// locale and ajv aliases and the minified names work in the shipped bundle, not only in the sources).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUDGET_KIB, bundle, kib, NO_SERVICES, overBudget, PROBES, routesIn, WORKERS } from '../../scripts/lib/bundles';
import { runScript } from '../../scripts/lib/worker';

const dir = mkdtempSync(join(tmpdir(), 'bundles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
  if (probe) it('answers its first request in workerd', async () => {
    const b = get();
    const worker = await runScript(b.script, b.dir, NO_SERVICES);
    try {
      const res = await worker.mf.dispatchFetch(new URL(probe!.path, worker.url), { method: probe!.method });
      const text = await res.text();
      expect(res.status, text.slice(0, 300)).toBe(probe!.status);
      if (probe!.status === 401) expect(JSON.parse(text).detail).toBeTruthy();
    } finally {
      await worker.dispose();
    }
  });
});
