// Rules of the source tree that no compiler checks, in `npm test`:
// - every benchmark sets up its services through the harness (scripts/lib/bench-harness.ts, and
//   scripts/lib/demo-stack.ts on top of it): no bench file under scripts/bench/ starts a gateway,
//   creates or drops a database, picks the servers, writes a Worker's service bindings, calls the
//   gateway's counters or spawns `npm start` itself. Benches that measure the product's own stack
//   (chaos, freshness, soak, streams) start it through the harness too (startNpmStart, startThrowaway:
//   scripts/lib/npm-start.ts).
// - comments of served code (functions/, shared/) carry no measured timings: a figure ages with the
//   machine and the code around it, so it lives in docs/BENCHMARKS.md or docs/PERFORMANCE.md and the
//   comment keeps the reason (with a pointer to the section). Budgets, limits and timeouts the code
//   enforces ("within 2 s", "a 300 ms budget", "(30 s)") are settings, not measurements, and do not
//   match: a measurement is what the patterns below describe.
//   A pointer to a doc's section (`docs/BENCHMARKS.md "Startup and bundles"`) names a heading or a
//   bold paragraph lead of that doc that exists.
// - docs/BENCHMARKS.md opens with one current row per bench section (figure, command, date, a link
//   to a section that exists), and its command list names every bench of scripts/bench/index.ts.
// - endpoints are named as endpoints: every route module lives in its area's `functions/<area>/routes/`,
//   named by the operation it registers (`routes/list-trends.ts`), and is loaded by a line of the area's
//   table (`functions/<area>/routes.ts`); no file of that folder is left unloaded, and no other file of
//   the area declares or registers a route. Served code reaches an endpoint file only through its
//   table: what two endpoints share is a helper beside the folder. The `plain` loader of a line (a
//   handler alone, public's widget.js: shared/http/route-table.ts) is not a route module and may load a helper.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** The .ts files under `dir` (relative to the repository), sorted. */
function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f))
    .sort();
}

/** `file:line: text` of every line of `files` that matches one of `rules`, with the rule's reason. */
function offenders(files: string[], lines: (file: string) => { line: number; text: string }[], rules: [RegExp, string][]): string[] {
  const out: string[] = [];
  for (const file of files)
    for (const { line, text } of lines(file))
      for (const [re, why] of rules) if (re.test(text)) out.push(`${file}:${line}: ${why}: ${text.trim()}`);
  return out;
}

const sourceLines = (file: string) =>
  readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .map((text, i) => ({ line: i + 1, text }));

describe('benchmarks set up their services through the harness', () => {
  /** What only scripts/lib/bench-harness.ts (with its npm-start.ts, and the demo stack built on it) does. */
  const SET_UP: [RegExp, string][] = [
    [/\bstartGateway\s*\(|from '[./]*\/gateway\/index'/, 'starts a gateway (startBenchGateway, startBenchServices)'],
    [/gateway\/cli(\.ts)?\b/, 'runs the gateway process (startBenchGateway({ gatewayProcess: true }))'],
    [/\b(CREATE|DROP) DATABASE\b/i, 'creates or drops a database (freshDatabase, copyDatabase, recreateDatabase)'],
    [/\bprocess\.env\.(PG_BASE_URL|REDIS_URL)\s*\?\?/, 'picks the servers (PG_BASE, REDIS_URL)'],
    [
      /\b(NEON_HTTP_ENDPOINT|NEON_WS_PROXY|UPSTASH_REDIS_REST_URL|UPSTASH_REDIS_REST_TOKEN)\s*:/,
      'writes service bindings (BenchServices.bindings)',
    ],
    [/\bspawn\(\s*['"]npm['"],\s*\[\s*['"]start['"]/, 'spawns npm start (startNpmStart, startThrowaway)'],
    [/['"`]\/stats\b/, "calls the gateway's counters (gatewayStats, BenchServices.counters)"],
  ];

  it('no bench file under scripts/bench/ does what the harness does', () => {
    const benches = tsFiles('scripts/bench');
    expect(benches.length).toBeGreaterThan(20);
    expect(offenders(benches, sourceLines, SET_UP)).toEqual([]);
  });

  it('each pattern finds the harness doing it (so the rule above cannot pass by matching nothing)', () => {
    const harness = ['scripts/lib/bench-harness.ts', 'scripts/lib/npm-start.ts'].flatMap(sourceLines);
    expect(SET_UP.filter(([re]) => !harness.some(({ text }) => re.test(text))).map(([, why]) => why)).toEqual([]);
  });
});

/** Each line of each comment of a TypeScript file (strings and template literals are not comments). */
function commentLines(file: string): { line: number; text: string }[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const ranges = new Map<number, ts.CommentRange>();
  const visit = (node: ts.Node) => {
    for (const r of [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.end) ?? [])])
      ranges.set(r.pos, r);
    // Tokens too (getChildren): a comment before a closing brace is the brace's leading trivia.
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  const out: { line: number; text: string }[] = [];
  for (const r of [...ranges.values()].sort((a, b) => a.pos - b.pos)) {
    const first = source.getLineAndCharacterOfPosition(r.pos).line;
    for (const [i, l] of text.slice(r.pos, r.end).split('\n').entries()) out.push({ line: first + i + 1, text: l });
  }
  return out;
}

/** Timings as measurements are written; a setting is a round figure on its own ("2 s", "(30 s)", "every 100 ms"). */
const TIME = String.raw`\d[\d,]*(?:\.\d+)? ?(?:ms|s|µs|us|min|minutes?|seconds?)\b`;
const MEASURED: [RegExp, string][] = [
  [/\b\d+\.\d+ ?(?:ms|s|µs|us|min)\b/, 'a timing with decimals'],
  [new RegExp(String.raw`\b\d[\d,.]* ?(?:-|–|to) ?${TIME}`), 'a range of timings'],
  [
    new RegExp(
      String.raw`(?:\b(?:took|takes|taking|cost|costs|spent|spends|waited|saved|saves|instead of|against|median|p50|p9\d|about|around|roughly)|~) ?(?:of )?${TIME}`,
    ),
    'a timing as a measurement reads ("took 3 s", "instead of 5 ms", "~25 s")',
  ],
  [/\b\d+(?:\.\d+)? ?x (?:faster|slower|quicker|cheaper|as fast)\b/, 'a speed-up'],
  [/\b\d+\.\d+ ?[x×](?![\w-])/, 'a ratio with decimals ("2.7x the minimal Worker")'],
  [
    /(?<!(?:[<>]=?|≤|≥|under|within|at most|up to|budget of|limit of) ?)\b\d[\d,]*(?:\.\d+)? ?(?:ms|µs|us) of\b/,
    'a share of a timing ("12 ms of its CPU"; a bound such as "<= 50 ms of database time" is a goal)',
  ],
  [/\b(?:lines|rows|observations|requests|calls)\/s\b|\brps\b/, 'a throughput'],
  [/\((?:sampled|measured)\b|\bmedian of \d/, 'a sampled figure'],
];

describe('served code carries no measured timings in its comments', () => {
  const files = [...tsFiles('functions'), ...tsFiles('shared')];

  it('no comment of functions/ or shared/ quotes one (docs/BENCHMARKS.md, docs/PERFORMANCE.md hold them)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(offenders(files, commentLines, MEASURED)).toEqual([]);
  });

  it('the patterns tell measurements from settings', () => {
    const verdict = (comment: string) => MEASURED.some(([re]) => re.test(comment));
    // Measurements as comments used to quote them.
    for (const measured of [
      'PostgreSQL then spends 0.1-1 s compiling it',
      'the nested loops built on that estimate took 174 s for an hour',
      'its answer back by 4-5 ms (14.6-15.4 ms, 10.2-11.5 ms with this wait)',
      'Lines that plainly satisfy the schema skip zod (3x faster)',
      'the first request about 20 ms of its CPU (sampled)',
      'the rebuild took 1.3 s instead of 4.3-4.8 s over unnest',
      'statistics would only cost time (~1 s an hour)',
      '/v1/usage waited out BUSY_WAIT_MS (p50 1.1 s under the load bench)',
      'took ~3,030 ms with little database time',
      'loads at 19.5k lines/s',
      'the rebuild took 3.2 s on the first million lines',
      'parsing the schemas is 12 ms of the first request',
      'a first read at 2.7x the minimal Worker',
      'one SQL read (0.85x)',
    ])
      expect(verdict(measured), measured).toBe(true);
    // Budgets, limits, timeouts and schedules the code enforces.
    for (const setting of [
      'switching a project back on reaches it within 2 s',
      "honoured everywhere within 2 s instead of the key cache's 30 s",
      'Redis answering within its 300 ms budget',
      "the key cache (30 s), an operator's change reaches an isolate within that time",
      'Queues consumers get 15 minutes of wall time',
      'a 0 ms timer does the same',
      'at most 16x the peak a day',
      'a third sequential round trip every 30 s',
      '401s one client address may cause per minute',
      "statement_timeout (ms) of a request's queries. Default 60,000",
      'goal: cold p50 <= 50 ms of database time, within 150 ms of wall time',
      'a budget of 300 ms of wall time',
      // Constants and their units, and "ms" inside identifiers.
      '`FOLLOWER_WAIT_MS = 3_000` is how long a follower polls',
      'HELD_MS (1 h), FRESH_MS (10 s) for a state',
      'the timeoutMs of a call; msPerHour; 3_600_000 ms an hour',
      'the budget of a request, ms of wall time (REQUEST_BUDGET_MS)',
    ])
      expect(verdict(setting), setting).toBe(false);
  });
});

describe('code points to doc sections that exist', () => {
  /** Headings and bold paragraph leads (`**Bulk loads.**`) of a Markdown file. */
  const sectionsOf = (doc: string) => {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    return [
      ...text
        .split('\n')
        .filter((l) => l.startsWith('#'))
        .map((l) => l.replace(/^#+\s*/, '')),
      ...[...text.matchAll(/\*\*([^*]+?)\.?\*\*/g)].map((m) => m[1]!),
    ];
  };

  it("every pointer to a doc's section in functions/, shared/, scripts/ and tests/ names one of that doc", () => {
    const sections = new Map<string, string[]>();
    let pointers = 0;
    const out: string[] = [];
    for (const file of ['functions', 'shared', 'scripts', 'tests'].flatMap(tsFiles)) {
      // A pointer may run over a comment's line break.
      const text = readFileSync(join(ROOT, file), 'utf8').replace(/\n\s*(?:\/\/|\*)\s*/g, ' ');
      for (const [, name, section] of text.matchAll(/\b((?:docs\/)?[A-Z]+\.md)[,;:]? "([^"]+)"/g)) {
        const doc = name!.startsWith('docs/') || name === 'README.md' ? name! : `docs/${name}`;
        if (!existsSync(join(ROOT, doc))) {
          out.push(`${file}: ${doc} does not exist`);
          continue;
        }
        if (!sections.has(doc)) sections.set(doc, sectionsOf(doc));
        pointers++;
        if (!sections.get(doc)!.some((s) => s.startsWith(section!))) out.push(`${file}: ${doc} has no section "${section}"`);
      }
    }
    expect(pointers).toBeGreaterThan(100);
    expect(out).toEqual([]);
  });
});

/** GitHub's anchor of a Markdown heading. */
const anchorOf = (heading: string) =>
  heading
    .replace(/^#+\s*/, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

describe('docs/BENCHMARKS.md opens with the current figure of every bench', () => {
  const text = readFileSync(join(ROOT, 'docs/BENCHMARKS.md'), 'utf8');
  const lines = text.split('\n');
  const headings = lines.filter((l) => /^#{1,4} /.test(l));
  const sections = headings.filter((h) => h.startsWith('## ') && h !== '## Current figures');
  const start = lines.indexOf('## Current figures');
  // The table's rows: the lines after its header and separator, up to the first line that is not a row.
  const header = lines.findIndex((l, i) => i > start && l.startsWith('| bench |'));
  const end = lines.findIndex((l, i) => i > header && !l.startsWith('|'));
  const rows = lines.slice(header + 2, end);
  const cells = rows.map((row) => row.slice(2, -2).split(' | '));

  it('each row gives a figure, a command and a date, and links a section that exists', () => {
    expect(start).toBeGreaterThan(0);
    expect(header).toBeGreaterThan(start);
    expect(rows.length).toBeGreaterThan(10);
    const anchors = new Set(headings.map(anchorOf));
    const bad = cells.flatMap(([bench, figure, command, date, section]) => {
      const link = /\]\(#([^)]+)\)/.exec(section ?? '')?.[1];
      const problems = [
        !figure?.trim() && 'no figure',
        !/`[^`]*(npm run|npx) /.test(command ?? '') && 'no command',
        !/\b20\d\d-\d\d-\d\d\b/.test(date ?? '') && 'no date',
        !(link && anchors.has(link)) && `no section #${link}`,
      ].filter(Boolean);
      return problems.length ? [`${bench}: ${problems.join(', ')}`] : [];
    });
    expect(bad).toEqual([]);
  });

  it('every bench section has a row', () => {
    const linked = new Set(cells.map((c) => /\]\(#([^)]+)\)/.exec(c[4] ?? '')?.[1]));
    expect(sections.length).toBeGreaterThan(10);
    expect(sections.filter((h) => !linked.has(anchorOf(h)))).toEqual([]);
  });

  it('its command list names every bench of scripts/bench/index.ts', () => {
    const names = [...readFileSync(join(ROOT, 'scripts/bench/index.ts'), 'utf8').matchAll(/^\s+'?([\w:]+)'?: \(\) => import\(/gm)].map(
      (m) => m[1]!,
    );
    expect(names.length).toBeGreaterThan(15);
    const block = text.slice(0, text.indexOf('## Current figures'));
    expect(names.filter((n) => !new RegExp(`npm run bench -- ${n}(?![\\w:])`).test(block))).toEqual([]);
  });
});

/** The areas: the folders of functions/ that hold a route table (routes.ts). */
const AREAS = readdirSync(join(ROOT, 'functions'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(ROOT, 'functions', d.name, 'routes.ts')))
  .map((d) => d.name)
  .sort();

/** A line of an area's table (shared/http/route-table.ts RouteLine), as written in its routes.ts. */
interface TableLine {
  line: number;
  method: string;
  /** The path as OpenAPI and the tests write it: `{alpha_2}`, under the table's first mirror version. */
  path: string;
  /** The module the line's loader imports (`./routes/get-region`), else undefined (not an `import()` of a literal). */
  module: string | undefined;
}

/** The lines of functions/<area>/routes.ts, a loader named by a const (`const widget = () => import(...)`) resolved. */
function tableLines(area: string): TableLine[] {
  const file = join('functions', area, 'routes.ts');
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const consts = new Map<string, ts.Expression>();
  const arrays = new Map<string, ts.ArrayLiteralExpression>();
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) consts.set(node.name.text, node.initializer);
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && ts.isArrayLiteralExpression(node.initializer))
      arrays.set(node.name.text, node.initializer);
    node.forEachChild(visit);
  };
  visit(source);
  const importOf = (node: ts.Node): string | undefined => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      return arg && ts.isStringLiteral(arg) ? arg.text : undefined;
    }
    return node.forEachChild(importOf);
  };
  const text = (node: ts.Expression | undefined) => (node && ts.isStringLiteralLike(node) ? node.text : '');
  const prefix = text(arrays.get('mirror')?.elements[0]);
  const lines: readonly ts.Expression[] = arrays.get('routes')?.elements ?? [];
  const entries = lines.filter(ts.isArrayLiteralExpression);
  return entries.map((entry) => {
    const [method, path, load] = entry.elements;
    const loader = load && ts.isIdentifier(load) ? consts.get(load.text) : load;
    return {
      line: source.getLineAndCharacterOfPosition(entry.getStart()).line + 1,
      method: text(method),
      path: (prefix ? `/${prefix}` : '') + text(path).replace(/:(\w+)/g, '{$1}'),
      module: loader && importOf(loader),
    };
  });
}

/** The endpoint files of an area: functions/<area>/routes/*.ts, as `./routes/<name>`. */
const endpointFiles = (area: string) =>
  readdirSync(join(ROOT, 'functions', area, 'routes'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `./routes/${f.replace(/\.ts$/, '')}`)
    .sort();

describe('endpoints live in functions/<area>/routes/, each loaded by its area table', () => {
  it('finds every area and its table', () => {
    expect(AREAS).toEqual(['articles', 'entities', 'feed', 'geo', 'mcp', 'public', 'tracking', 'trends']);
    for (const area of AREAS) expect(tableLines(area).length, area).toBeGreaterThan(0);
  });

  it("every line's loader imports a module of its area's routes/ folder", () => {
    const out = AREAS.flatMap((area) =>
      tableLines(area)
        .filter(({ module }) => !/^\.\/routes\/[a-z0-9-]+$/.test(module ?? ''))
        .map(({ line, path, module }) => `functions/${area}/routes.ts:${line}: ${path} loads ${module ?? 'no literal import()'}`),
    );
    expect(out).toEqual([]);
  });

  it('every file of functions/<area>/routes/ is loaded by its table (no orphan endpoint)', () => {
    const out = AREAS.flatMap((area) => {
      const loaded = new Set(tableLines(area).map(({ module }) => module));
      return endpointFiles(area)
        .filter((file) => !loaded.has(file))
        .map((file) => `functions/${area}/${file.slice(2)}.ts: in no line of functions/${area}/routes.ts`);
    });
    expect(out).toEqual([]);
  });

  it('served code reaches an endpoint file only through its table (no helper or other endpoint imports one)', () => {
    const files = [...tsFiles('functions'), ...tsFiles('shared')].filter((f) => !/^functions\/[^/]+\/routes\.ts$/.test(f));
    const out = files.flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/(?:from|import\()\s*'(\.[^']*)'/g)]
        .map((m) => join(dirname(file), m[1]!))
        .filter((target) => /^functions\/[^/]+\/routes\//.test(target))
        .map((target) => `${file}: imports ${target}`),
    );
    expect(out).toEqual([]);
  });

  it('no other file of an area declares or registers a route (no endpoint outside routes/)', () => {
    const ROUTE: [RegExp, string][] = [
      [/\bcreateRoute\s*\(/, "declares a route's contract"],
      [/\bexport (async )?function register\b|\bexport const register\b/, 'registers routes'],
    ];
    const files = AREAS.flatMap((area) => tsFiles(join('functions', area))).filter((f) => !f.includes('/routes/'));
    expect(files.length).toBeGreaterThan(50);
    expect(offenders(files, sourceLines, ROUTE)).toEqual([]);
    // The patterns match what every endpoint file holds (so the rule above cannot pass by matching nothing).
    for (const area of AREAS)
      for (const file of endpointFiles(area)) {
        const text = readFileSync(join(ROOT, 'functions', area, `${file.slice(2)}.ts`), 'utf8');
        expect(
          ROUTE.filter(([re]) => !re.test(text)).map(([, why]) => why),
          file,
        ).toEqual([]);
      }
  });
});

/** Every `describe` title of the test files (tests/**\/*.test.ts), with its file. */
function describeTitles(): { file: string; title: string }[] {
  return tsFiles('tests')
    .filter((f) => f.endsWith('.test.ts'))
    .flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\bdescribe(?:\.\w+)*(?:\([^)]*\))?\(\s*(['"`])(.*?)\1/g)].map((m) => ({
        file,
        title: m[2]!,
      })),
    );
}

/** The endpoint files tests/README.md maps to their tests: `functions/<area>/routes/<name>.ts` -> the test files its row names. */
function testMap(): Map<string, string[]> {
  const rows = readFileSync(join(ROOT, 'tests/README.md'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('| `'));
  return new Map(
    rows.map((row) => {
      const [endpoint = '', ...tests] = [...row.matchAll(/`([^`]+\.ts)`/g)].map((m) => m[1]!);
      return [endpoint, tests];
    }),
  );
}

describe("an endpoint's tests are found by its name", () => {
  it('each endpoint has a describe title naming its path, or a row in tests/README.md', () => {
    const titles = describeTitles();
    expect(titles.length).toBeGreaterThan(100);
    const named = (path: string) => titles.some(({ title }) => new RegExp(`${path.replace(/[{}.]/g, '\\$&')}(?![\\w/{-])`).test(title));
    const map = testMap();
    const out = AREAS.flatMap((area) =>
      tableLines(area)
        .filter(({ path, module }) => !named(path) && !map.has(`functions/${area}/${module?.slice(2)}.ts`))
        .map(({ method, path, module }) => `${method} ${path} (functions/${area}/${module?.slice(2)}.ts)`),
    );
    expect(out).toEqual([]);
  });

  it("tests/README.md's rows name endpoint files and test files that exist", () => {
    const map = testMap();
    expect(map.size).toBeGreaterThan(0);
    const missing = [...map].flatMap(([endpoint, tests]) => [endpoint, ...tests].filter((f) => !existsSync(join(ROOT, f))));
    expect(missing).toEqual([]);
    expect([...map].filter(([endpoint, tests]) => !endpoint.includes('/routes/') || tests.length === 0).map(([e]) => e)).toEqual([]);
  });
});
