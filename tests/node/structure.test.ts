// The source tree's shape (issue 23): no import cycle anywhere in the code, its scripts and its tests.
import madge from 'madge';
import { expect, it } from 'vitest';

it('has no circular import', async () => {
  const graph = await madge(['functions', 'shared', 'scripts', 'tests'], {
    fileExtensions: ['ts'],
    tsConfig: 'tsconfig.json',
  });
  expect(graph.circular()).toEqual([]);
}, 120_000);
