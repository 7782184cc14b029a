// `npm run bench -- startup [--runs 5] [--workers geo,mcp]`
// Builds every deployed Worker exactly as `wrangler deploy` does (a dry run per wrangler.toml
// environment) and, in the same run, a minimal @hono/zod-openapi Worker with one route
// (startup/minimal.ts) with the same build settings. Each is profiled with `wrangler check startup`
// (the CPU profile of the isolate's startup phase; busy ms = every sample that is not idle), runs
// interleaved, median per Worker. Then each is started in workerd (Miniflare), with its
// environment's compatibility flags, and its first request timed: keyless (401 after the key check),
// and keyed (the demo `full` key, a cheap route, against the demo data behind a local gateway).
// A cold request = startup + first request; its ratio to the minimal Worker's is the goal (docs/DECISIONS.md "Cold requests").
// A first request that reads data is also set against the minimal Worker whose route makes one
// PostgreSQL read through the same driver (startup/minimal-sql.ts): the floor of such an answer.
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unstable_readConfig } from 'wrangler';
import {
  bundle,
  BUDGET_KIB,
  keyedProbe,
  kib,
  NO_SERVICES,
  PROBES,
  ROOT,
  topPackages,
  WORKERS,
  type Bundle,
  type Probe,
  type WorkerName,
} from '../lib/bundles';
import { startDemoServices, type DemoServices } from '../lib/demo-stack';
import { runScript } from '../lib/worker';
import { fmt, fmtRatio, log, median, ratio, table } from './stats';

const arg = (argv: string[], name: string, fallback: number) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};

const MINIMAL = 'minimal';
const MINIMAL_SQL = 'minimal-sql';
/** The minimal Worker with one SQL read answers its probe from the demo services only. */
const MINIMAL_SQL_PROBE: Probe = { method: 'GET', path: '/hello/world', status: 200 };

/**
 * First requests of the other kinds a Worker serves, beside its keyless and keyed probes (demo data
 * behind the gateway): the public Worker's refused check (422, no domain); its keyless probe is the
 * widget script and its keyed one a check answered 200.
 */
const MORE_PROBES: Partial<Record<WorkerName, (Probe & { kind: string })[]>> = {
  public: [{ kind: 'check 422 (no domain)', method: 'GET', path: '/public/platform-profile', status: 422 }],
};

/**
 * wrangler.toml's build settings around the minimal Worker, so that both are built the same way: an
 * area environment's (the same compatibility flags as the request Workers).
 */
function minimalConfig(dir: string, name: string): string {
  const config = unstable_readConfig({ config: join(ROOT, 'wrangler.toml'), env: 'geo' }, { hideWarnings: true });
  const file = join(dir, `${name}.wrangler.json`);
  writeFileSync(
    file,
    JSON.stringify({
      name,
      main: join(ROOT, `scripts/bench/startup/${name}.ts`),
      compatibility_date: config.compatibility_date,
      compatibility_flags: config.compatibility_flags,
      minify: config.minify,
      keep_names: config.keep_names,
      upload_source_maps: config.upload_source_maps,
      alias: Object.fromEntries(Object.entries(config.alias ?? {}).map(([from, to]) => [from, join(ROOT, String(to))])),
    }),
  );
  return file;
}

const wrangler = join(ROOT, 'node_modules/.bin/wrangler');
const quiet: ExecFileSyncOptions = {
  stdio: ['ignore', 'ignore', 'pipe'],
  cwd: ROOT,
  env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
};

/** The upload form `wrangler check startup --worker` takes (the same build as `bundle`). */
function pack(config: string, env: string, file: string): void {
  execFileSync(wrangler, ['deploy', '--dry-run', '--config', config, '--env', env, '--outfile', file], quiet);
}

/** Busy milliseconds of one startup profile: every sample but `(idle)`. */
function profileStartup(bundleFile: string, out: string): number {
  execFileSync(wrangler, ['check', 'startup', '--worker', bundleFile, '--outfile', out], quiet);
  const profile = JSON.parse(readFileSync(out, 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string } }[];
    samples: number[];
    timeDeltas: number[];
  };
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  let busy = 0;
  profile.samples.forEach((id, i) => {
    if (!idle.has(id)) busy += profile.timeDeltas[i + 1] ?? 0;
  });
  return busy / 1000;
}

/** Wall ms of the first request to a fresh isolate, and the median of the next five. */
async function firstRequest(b: Bundle, probe: Probe, bindings: Record<string, string>): Promise<{ first: number; warm: number }> {
  const worker = await runScript(b.script, b.dir, bindings, b.flags);
  try {
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      const started = performance.now();
      const res = await worker.mf.dispatchFetch(new URL(probe.path, worker.url), {
        method: probe.method,
        headers: probe.headers,
        body: probe.body,
      });
      const text = await res.text();
      times.push(performance.now() - started);
      if (res.status !== probe.status)
        throw new Error(`${b.name}: ${probe.method} ${probe.path} answered ${res.status}: ${text.slice(0, 200)}`);
    }
    return { first: times[0], warm: median(times.slice(1)) };
  } finally {
    await worker.dispose();
  }
}

export async function run(argv: string[]): Promise<void> {
  const runs = arg(argv, '--runs', 5);
  const dir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
  let services: DemoServices | undefined;
  try {
    const main = join(ROOT, 'wrangler.toml');
    // --workers geo,mcp: only those beside the minimal Worker (a quicker look while profiling).
    const only = argv.includes('--workers') ? argv[argv.indexOf('--workers') + 1].split(',') : undefined;
    const targets = [MINIMAL, MINIMAL_SQL, ...WORKERS.filter((w) => !only || only.includes(w))];
    const bundles = new Map<string, Bundle>();
    for (const name of targets) {
      log(`building ${name}`);
      const [config, env] = name === MINIMAL || name === MINIMAL_SQL ? [minimalConfig(dir, name), ''] : [main, name];
      bundles.set(name, bundle(name, join(dir, name), env, config));
      pack(config, env, join(dir, `${name}.bundle`));
    }
    const busy = new Map<string, number[]>(targets.map((t) => [t, []]));
    for (let r = 0; r < runs; r++) {
      log(`startup profiles, run ${r + 1}/${runs}`);
      for (const name of targets) busy.get(name)!.push(profileStartup(join(dir, `${name}.bundle`), join(dir, `${name}-${r}.cpuprofile`)));
    }
    log('demo data behind a local gateway (the keyed first requests)');
    services = await startDemoServices({
      database: `bench_startup_${process.pid}`,
      log,
    });
    const key = services.keys.find((k) => k.name === 'full')!.key;
    const served = targets.filter((name) => PROBES[name as keyof typeof PROBES]);
    const keyless = new Map<string, { first: number; warm: number }[]>(served.map((t) => [t, []]));
    const keyed = new Map<string, { first: number; warm: number }[]>(served.map((t) => [t, []]));
    const more = new Map<string, { first: number; warm: number }[]>();
    keyed.set(MINIMAL_SQL, []);
    // Untimed: the gateway's first connection to the fresh demo database, which the first timed read would pay.
    await firstRequest(bundles.get(MINIMAL_SQL)!, MINIMAL_SQL_PROBE, services.bindings);
    for (let r = 0; r < runs; r++) {
      log(`first requests, run ${r + 1}/${runs}`);
      keyed.get(MINIMAL_SQL)!.push(await firstRequest(bundles.get(MINIMAL_SQL)!, MINIMAL_SQL_PROBE, services.bindings));
      for (const name of served) {
        const b = bundles.get(name)!;
        keyless.get(name)!.push(await firstRequest(b, PROBES[name as keyof typeof PROBES]!, NO_SERVICES));
        keyed.get(name)!.push(await firstRequest(b, keyedProbe(name as WorkerName, key)!, services.bindings));
        for (const probe of MORE_PROBES[name as WorkerName] ?? []) {
          const id = `${name}|${probe.kind}`;
          more.set(id, [...(more.get(id) ?? []), await firstRequest(b, probe, services.bindings)]);
        }
      }
    }

    const startupOf = (name: string) => median(busy.get(name)!);
    const firstOf = (m: Map<string, { first: number }[]>, name: string) => median(m.get(name)!.map((q) => q.first));
    const cold = (m: Map<string, { first: number }[]>, name: string) => startupOf(name) + firstOf(m, name);
    const rows = targets.map((name) => {
      const b = bundles.get(name)!;
      const budget = name === MINIMAL || name === MINIMAL_SQL ? '' : `${BUDGET_KIB[name as keyof typeof BUDGET_KIB]} KiB`;
      // Keyless cold against the minimal Worker's; keyed (a read of the demo data) against the minimal Worker with one SQL read.
      const figures = (m: Map<string, { first: number }[]>, reference: string) =>
        m.has(name)
          ? [fmt(firstOf(m, name), 1), fmt(cold(m, name), 1), fmtRatio(ratio(cold(m, name), cold(m, reference)))]
          : ['n/a', 'n/a', 'n/a'];
      return [
        name,
        fmt(startupOf(name), 1),
        ...figures(keyless, MINIMAL),
        ...figures(keyed, MINIMAL_SQL),
        keyed.has(name) ? fmt(median(keyed.get(name)!.map((q) => q.warm)), 1) : 'n/a',
        kib(b.raw),
        kib(b.gzip),
        budget,
        topPackages(b, 4),
      ];
    });
    console.log(
      `\nStartup: \`wrangler check startup\`, busy ms, median of ${runs} runs; first request: wall ms in workerd (Miniflare), median of ${runs} fresh isolates; cold = startup + first request, keyless ratio to the minimal Worker's, keyed to the minimal Worker with one SQL read\n`,
    );
    console.log(
      table(
        [
          'Worker',
          'startup ms',
          'keyless first ms',
          'keyless cold ms',
          'vs minimal',
          'keyed first ms',
          'keyed cold ms',
          'vs minimal+SQL',
          'next keyed ms',
          'raw',
          'gzip',
          'budget',
          'largest packages (KiB minified)',
        ],
        rows,
      ),
    );
    // Every kind of first request, one row each, against the minimal Worker's cold request, and those
    // that read data also against the minimal Worker with one SQL read.
    type Kind = [name: string, kind: string, first: number, reads: boolean];
    const kinds = served.flatMap((name) => {
      const probe = PROBES[name as keyof typeof PROBES]!;
      const rowsOf: Kind[] = [
        [name, `${probe.method} ${probe.path} (${probe.status}, no services)`, firstOf(keyless, name), false],
        [name, `${keyedProbe(name as WorkerName, key)!.path} (200, demo data)`, firstOf(keyed, name), true],
        ...(MORE_PROBES[name as WorkerName] ?? []).map(
          (p): Kind => [name, `${p.path} (${p.kind})`, median(more.get(`${name}|${p.kind}`)!.map((q) => q.first)), false],
        ),
      ];
      return name === MINIMAL
        ? [rowsOf[0]!, [MINIMAL_SQL, `GET ${MINIMAL_SQL_PROBE.path} (200, one SQL read)`, firstOf(keyed, MINIMAL_SQL), true] satisfies Kind]
        : rowsOf;
    });
    const baseline = cold(keyless, MINIMAL);
    const readBaseline = cold(keyed, MINIMAL_SQL);
    console.log(
      `\nCold requests of every kind (startup + first request), ratio to the minimal Worker's (${fmt(baseline, 1)} ms) and, for a read, to the minimal Worker's with one SQL read (${fmt(readBaseline, 1)} ms)\n`,
    );
    console.log(
      table(
        ['Worker', 'first request', 'startup ms', 'first ms', 'cold ms', 'vs minimal', 'vs minimal+SQL'],
        kinds.map(([name, kind, first, reads]) => [
          name,
          kind,
          fmt(startupOf(name), 1),
          fmt(first, 1),
          fmt(startupOf(name) + first, 1),
          fmtRatio(ratio(startupOf(name) + first, baseline)),
          reads ? fmtRatio(ratio(startupOf(name) + first, readBaseline)) : '',
        ]),
      ),
    );
  } finally {
    await services?.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}
