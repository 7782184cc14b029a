// `npm run bench -- startup:profile [--worker geo] [--keyed] [--path /v1/geo/languages] [--flags nodejs_compat] [--files] [--top 15]`
// Where a fresh isolate's first request spends its CPU: the Worker is built as `wrangler deploy`
// builds it (its environment's compatibility flags unless --flags), started in workerd (Miniflare)
// with the inspector on, and its first request (keyless by default: the Worker's probe) is sampled
// through the DevTools protocol (Profiler, 100 µs). --keyed: the Worker's keyed first request (the demo
// `full` key, scripts/lib/bundles.ts KEYED) against the demo data behind a local gateway. Samples are attributed through the bundle's
// source map to npm packages (or, with --files, source files); the .cpuprofile is kept for DevTools.
import { DEV_CURSOR_SECRET } from '../../shared/http/dev-secrets';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import WebSocket from 'ws';
import { bundle, keyedProbe, NO_SERVICES, PROBES, type Probe, type WorkerName } from '../lib/bundles';
import { startDemoServices, type DemoServices } from '../lib/demo-stack';
import { fmt, log } from './stats';

const opt = (argv: string[], name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
/** In the bench's port range (docs/BENCHMARKS.md). */
const INSPECTOR_PORT = 8831;

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface Profile {
  nodes: { id: number; callFrame: CallFrame }[];
  samples: number[];
  timeDeltas: number[];
}

/** A minimal DevTools protocol client: one command at a time. */
async function devtools(url: string) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let id = 0;
  const pending = new Map<number, (result: unknown) => void>();
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) pending.get(msg.id)?.(msg.result);
  });
  return {
    send: <T>(method: string, params: object = {}) =>
      new Promise<T>((resolve) => {
        pending.set(++id, resolve as (result: unknown) => void);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

export async function run(argv: string[]): Promise<void> {
  const name = (opt(argv, '--worker') ?? 'geo') as WorkerName;
  let services: DemoServices | undefined;
  let probe: Probe | undefined = PROBES[name];
  let bindings: Record<string, string> = NO_SERVICES;
  if (argv.includes('--keyed')) {
    services = await startDemoServices({
      database: `bench_profile_${process.pid}`,
      log,
    });
    probe = keyedProbe(name, services.keys.find((k) => k.name === 'full')!.key);
    bindings = services.bindings;
  }
  if (!probe) throw new Error(`no probe for the ${name} Worker`);
  const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'));
  log(`building ${name}`);
  const b = bundle(name, dir);
  const flags = opt(argv, '--flags')?.split(',').filter(Boolean) ?? b.flags;
  const path = opt(argv, '--path') ?? probe.path;
  const vars = { APP_URL: 'https://app.example.com', CURSOR_SECRET: DEV_CURSOR_SECRET, ENVIRONMENT: 'development' };
  const mf = new Miniflare({
    ...convertV4MiniflareOptions({
      workers: [
        {
          name: 'api',
          modules: true,
          scriptPath: b.script,
          modulesRoot: dir,
          compatibilityDate: '2026-11-01',
          compatibilityFlags: flags,
          bindings: { ...vars, ...bindings },
        },
      ],
    }),
    inspectorPort: INSPECTOR_PORT,
  });
  try {
    const url = await mf.ready;
    const cdp = await devtools(`${await mf.getInspectorURL()}core:user:api`);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    const started = performance.now();
    const res = await mf.dispatchFetch(new URL(path, url), { method: probe.method, headers: probe.headers, body: probe.body });
    await res.arrayBuffer();
    const wall = performance.now() - started;
    const { profile } = await cdp.send<{ profile: Profile }>('Profiler.stop');
    cdp.close();
    const file = join(dir, 'first-request.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));

    const map = new SourceMap(JSON.parse(readFileSync(`${b.script}.map`, 'utf8')));
    const where = ({ functionName, url: script, lineNumber, columnNumber }: CallFrame) => {
      if (!script.endsWith(`/${basename(b.script)}`) && script !== basename(b.script))
        return script ? script.split('/').pop()! : functionName || '(native)';
      const entry = map.findEntry(lineNumber, columnNumber);
      const source = 'originalSource' in entry ? entry.originalSource : '(bundle glue)';
      if (argv.includes('--files')) return source.replace(/.*node_modules\//, '').replace(/^(\.\.\/)+/, '');
      return (
        source.match(/.*node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ??
        source
          .replace(/^(\.\.\/)+/, '')
          .split('/')
          .slice(0, 2)
          .join('/')
      );
    };
    const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
    const self = new Map<string, number>();
    let busy = 0;
    profile.samples.forEach((sample, i) => {
      const frame = nodes.get(sample)!;
      if (frame.functionName === '(idle)') return;
      const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
      busy += ms;
      self.set(where(frame), (self.get(where(frame)) ?? 0) + ms);
    });
    console.log(
      `\n${name} ${probe.method} ${path} -> ${res.status}: wall ${fmt(wall, 1)} ms, busy ${fmt(busy, 1)} ms (sampled), flags [${flags.join(', ')}]; profile: ${file}\n`,
    );
    for (const [at, ms] of [...self].sort((x, y) => y[1] - x[1]).slice(0, Number(opt(argv, '--top') ?? 15))) {
      console.log(`${fmt(ms, 1).padStart(8)} ms  ${at}`);
    }
  } finally {
    await mf.dispose();
    await services?.dispose();
  }
}
