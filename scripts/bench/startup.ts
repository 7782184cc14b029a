// `npm run bench -- startup [--runs 5]`
// Builds every deployed Worker exactly as `wrangler deploy` does (a dry run per wrangler.toml
// environment) and, in the same run, a minimal @hono/zod-openapi Worker with one route
// (startup/minimal.ts) with the same build settings. Each is profiled with `wrangler check startup`
// (the CPU profile of the isolate's startup phase; busy ms = every sample that is not idle), runs
// interleaved, median per Worker and its ratio to the minimal Worker. Then each is started in
// workerd (Miniflare) and its first request timed: the work a lazy Worker defers from startup.
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unstable_readConfig } from 'wrangler';
import { bundle, BUDGET_KIB, kib, NO_SERVICES, PROBES, ROOT, topPackages, WORKERS, type Bundle } from '../lib/bundles';
import { runScript } from '../lib/worker';
import { fmt, fmtRatio, log, median, ratio, table } from './stats';

const arg = (argv: string[], name: string, fallback: number) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};

const MINIMAL = 'minimal';

/** wrangler.toml's build settings around the minimal Worker, so that both are built the same way. */
function minimalConfig(dir: string): string {
  const config = unstable_readConfig({ config: join(ROOT, 'wrangler.toml') }, { hideWarnings: true });
  const file = join(dir, 'wrangler.json');
  writeFileSync(file, JSON.stringify({
    name: MINIMAL,
    main: join(ROOT, 'scripts/bench/startup/minimal.ts'),
    compatibility_date: config.compatibility_date,
    compatibility_flags: config.compatibility_flags,
    minify: config.minify,
    keep_names: config.keep_names,
    upload_source_maps: config.upload_source_maps,
    alias: Object.fromEntries(Object.entries(config.alias ?? {}).map(([from, to]) => [from, join(ROOT, String(to))])),
  }));
  return file;
}

const wrangler = join(ROOT, 'node_modules/.bin/wrangler');
const quiet: ExecFileSyncOptions = { stdio: ['ignore', 'ignore', 'pipe'], cwd: ROOT, env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } };

/** The upload form `wrangler check startup --worker` takes (the same build as `bundle`). */
function pack(config: string, env: string, file: string): void {
  execFileSync(wrangler, ['deploy', '--dry-run', '--config', config, '--env', env, '--outfile', file], quiet);
}

/** Busy milliseconds of one startup profile: every sample but `(idle)`. */
function profileStartup(bundleFile: string, out: string): number {
  execFileSync(wrangler, ['check', 'startup', '--worker', bundleFile, '--outfile', out], quiet);
  const profile = JSON.parse(readFileSync(out, 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string } }[]; samples: number[]; timeDeltas: number[];
  };
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  let busy = 0;
  profile.samples.forEach((id, i) => { if (!idle.has(id)) busy += profile.timeDeltas[i + 1] ?? 0; });
  return busy / 1000;
}

/** Wall ms of the first request to a fresh isolate, and the median of the next five. */
async function firstRequest(b: Bundle): Promise<{ first: number; warm: number }> {
  const probe = PROBES[b.name as keyof typeof PROBES]!;
  const worker = await runScript(b.script, b.dir, NO_SERVICES);
  try {
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      const started = performance.now();
      const res = await worker.mf.dispatchFetch(new URL(probe.path, worker.url), { method: probe.method });
      await res.arrayBuffer();
      times.push(performance.now() - started);
      if (res.status !== probe.status) throw new Error(`${b.name}: ${probe.method} ${probe.path} answered ${res.status}`);
    }
    return { first: times[0], warm: median(times.slice(1)) };
  } finally {
    await worker.dispose();
  }
}

export async function run(argv: string[]): Promise<void> {
  const runs = arg(argv, '--runs', 5);
  const dir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
  try {
    const minimal = minimalConfig(dir);
    const main = join(ROOT, 'wrangler.toml');
    const targets = [MINIMAL, ...WORKERS];
    const bundles = new Map<string, Bundle>();
    for (const name of targets) {
      log(`building ${name}`);
      const [config, env] = name === MINIMAL ? [minimal, ''] : [main, name];
      bundles.set(name, bundle(name, join(dir, name), env, config));
      pack(config, env, join(dir, `${name}.bundle`));
    }
    const busy = new Map<string, number[]>(targets.map((t) => [t, []]));
    for (let r = 0; r < runs; r++) {
      log(`startup profiles, run ${r + 1}/${runs}`);
      for (const name of targets) busy.get(name)!.push(profileStartup(join(dir, `${name}.bundle`), join(dir, `${name}-${r}.cpuprofile`)));
    }
    const first = new Map<string, { first: number; warm: number }[]>(targets.map((t) => [t, []]));
    for (let r = 0; r < runs; r++) {
      log(`first requests, run ${r + 1}/${runs}`);
      for (const name of targets) if (PROBES[name as keyof typeof PROBES]) first.get(name)!.push(await firstRequest(bundles.get(name)!));
    }

    const base = median(busy.get(MINIMAL)!);
    const rows = targets.map((name) => {
      const b = bundles.get(name)!;
      const startup = median(busy.get(name)!);
      const requests = first.get(name)!;
      const budget = name === MINIMAL ? '' : `${BUDGET_KIB[name as keyof typeof BUDGET_KIB]} KiB`;
      return [
        name, fmt(startup, 1), fmtRatio(ratio(startup, base)),
        requests.length ? fmt(median(requests.map((q) => q.first)), 1) : 'n/a',
        requests.length ? fmt(median(requests.map((q) => q.warm)), 1) : 'n/a',
        kib(b.raw), kib(b.gzip), budget, topPackages(b, 4),
      ];
    });
    console.log(`\nStartup: \`wrangler check startup\`, busy ms, median of ${runs} runs; first request: wall ms in workerd (Miniflare), median of ${runs} fresh isolates\n`);
    console.log(table(
      ['Worker', 'startup ms', 'vs minimal', 'first request ms', 'next requests ms', 'raw', 'gzip', 'budget', 'largest packages (KiB minified)'],
      rows,
    ));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
