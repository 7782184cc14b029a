// The source tree's shape, in `npm test`: it type-checks, Biome finds it formatted and lint-clean, and no
// import cycle runs anywhere in the code, its scripts and its tests. With a cycle, what a module sees while
// it loads depends on which module was imported first, and route modules load on first use in any order
// (docs/PERFORMANCE.md "Routes load on first use").
// shared/ is in rooms (README "Architecture"): a folder per service, a few true utilities loose; and the
// API never loads the loader: no module a request Worker runs reaches ingest's code or the jobs Worker's.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import madge from 'madge';
import { beforeAll, describe, expect, it } from 'vitest';

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

const ROOT = join(import.meta.dirname, '..', '..');

/** The .ts files directly in `dir` (relative to the repository) and its folders, sorted. */
function entriesOf(dir: string): { files: string[]; folders: string[] } {
  const all = readdirSync(join(ROOT, dir), { withFileTypes: true });
  return {
    files: all
      .filter((d) => d.isFile() && d.name.endsWith('.ts'))
      .map((d) => d.name)
      .sort(),
    folders: all
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort(),
  };
}

describe('shared/ is in rooms', () => {
  /** The modules that may stay loose in shared/, each a utility that every room uses and none owns. */
  const LOOSE: Record<string, string> = {
    'env.ts': 'the one Env type of every Worker: bindings, config, request-scoped services',
    'format.ts': 'the output conventions of every area (ISO instants, cabinet links, rounding); no imports of the tree',
    'hash.ts': 'SHA-256, for key hashes, cache keys, cursors and ETags; no imports at all',
    'once.ts': 'a loader run once, for lazily loaded modules and apps; no imports, so any module may use it without a cycle',
  };

  it('no module is loose in shared/ but its few utilities', () => {
    expect(entriesOf('shared').files).toEqual(Object.keys(LOOSE).sort());
  });

  it('ingest is its entry and its rooms: format, write, bulk and the drop', () => {
    expect(entriesOf('shared/ingest')).toEqual({ files: ['index.ts'], folders: ['bulk', 'drop', 'format', 'write'] });
  });
});

/** Ingest's code: the loader (shared/ingest/), the read models' writers beside their readers, the jobs and dev Workers. */
const LOADER = [/^shared\/ingest\//, /^shared\/.+\/write(-[\w-]+)?\.ts$/, /^functions\/(jobs|dev)\//];
/** What the API runs: every module of functions/ but the jobs and dev Workers and the all-in-one local Worker (functions/index.ts). */
const SERVED = (file: string) => file.startsWith('functions/') && !/^functions\/(jobs\/|dev\/|index\.ts$)/.test(file);

/** The shortest import chain from `entry` to each module of `graph` it reaches. */
function chains(graph: Record<string, string[]>, entry: string): Map<string, string[]> {
  const out = new Map([[entry, [entry]]]);
  for (const queue = [entry]; queue.length; ) {
    const file = queue.shift()!;
    for (const next of graph[file] ?? [])
      if (!out.has(next)) {
        out.set(next, [...out.get(file)!, next]);
        queue.push(next);
      }
  }
  return out;
}

describe("the API's run-time imports never reach the loader", () => {
  let graph: Record<string, string[]> = {};
  beforeAll(async () => {
    // Run-time imports only: `import()` is followed (route modules load through it), `import type` is not.
    const options = { ts: { skipTypeImports: true }, es6: { skipTypeImports: true } };
    graph = (await madge(['functions', 'shared'], { fileExtensions: ['ts'], tsConfig: 'tsconfig.json', detectiveOptions: options })).obj();
  }, 120_000);

  it('the graph follows import() and skips type imports (so the rule cannot pass by missing edges)', () => {
    // functions/tracking/routes.ts loads its route modules through import() and imports its table's type only.
    expect(graph['functions/tracking/routes.ts']).toContain('functions/tracking/routes/get-usage.ts');
    expect(graph['functions/tracking/routes.ts']).not.toContain('shared/http/route-table.ts');
    // The rule's patterns name modules that exist, and the jobs Worker reaches them.
    const fromJobs = [...chains(graph, 'functions/jobs/index.ts').keys()];
    expect(LOADER.filter((re) => !fromJobs.some((f) => re.test(f)))).toEqual([]);
  });

  it('no module of an API Worker (functions/<area>/, the combined app) reaches ingest, jobs or dev code', () => {
    const served = Object.keys(graph).filter(SERVED);
    expect(served).toContain('functions/tracking/index.ts');
    expect(served).toContain('functions/combined-app.ts');
    // One chain per import that crosses into the loader: the shortest from an area Worker's entry when one reaches it.
    const rank = (chain: string[]) => (/^functions\/[^/]+\/index\.ts$/.test(chain[0]!) ? 0 : 1000) + chain.length;
    const crossings = new Map<string, string[]>();
    for (const entry of served)
      for (const [file, chain] of chains(graph, entry)) {
        const from = chain.at(-2) ?? '';
        if (!LOADER.some((re) => re.test(file)) || LOADER.some((re) => re.test(from))) continue;
        const edge = `${from} -> ${file}`;
        const known = crossings.get(edge);
        if (!known || rank(chain) < rank(known)) crossings.set(edge, chain);
      }
    expect([...crossings.values()].map((chain) => chain.join(' -> '))).toEqual([]);
  });
});
