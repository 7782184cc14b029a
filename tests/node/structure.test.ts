// The source tree's shape: no import cycle anywhere in the code, its scripts and its tests. With a cycle,
// what a module sees while it loads depends on which module was imported first, and route modules load on
// first use in any order (docs/PERFORMANCE.md "Routes load on first use").
import madge from 'madge';
import { expect, it } from 'vitest';

it('has no circular import', async () => {
  const graph = await madge(['functions', 'shared', 'scripts', 'tests'], {
    fileExtensions: ['ts'],
    tsConfig: 'tsconfig.json',
  });
  expect(graph.circular()).toEqual([]);
}, 120_000);
