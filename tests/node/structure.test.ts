// The source tree's shape, in `npm test`: it type-checks, Biome finds it formatted and lint-clean, and no
// import cycle runs anywhere in the code, its scripts and its tests. With a cycle, what a module sees while
// it loads depends on which module was imported first, and route modules load on first use in any order
// (docs/PERFORMANCE.md "Routes load on first use").
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import madge from 'madge';
import { expect, it } from 'vitest';

const run = promisify(execFile);

/** Runs a command of the project; its output is the failure message when it exits non-zero. */
async function passes(command: string, args: string[]): Promise<string> {
  try {
    await run(command, args, { maxBuffer: 64 * 1024 * 1024 });
    return 'ok';
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    return `${stdout}${stderr}`.trim() || String(err);
  }
}

it('has no circular import', async () => {
  const graph = await madge(['functions', 'shared', 'scripts', 'tests'], {
    fileExtensions: ['ts'],
    tsConfig: 'tsconfig.json',
  });
  expect(graph.circular()).toEqual([]);
}, 120_000);

it('type-checks (npm run typecheck)', async () => {
  expect(await passes('npx', ['tsc', '--noEmit', '-p', 'tsconfig.json'])).toBe('ok');
  expect(await passes('npx', ['tsc', '--noEmit', '-p', 'tsconfig.node.json'])).toBe('ok');
}, 300_000);

it('is formatted and lint-clean (npx biome check --write . fixes most of it)', async () => {
  expect(await passes('npx', ['biome', 'ci', '--colors=off', '--error-on-warnings', '.'])).toBe('ok');
}, 120_000);
