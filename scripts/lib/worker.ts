// The all-in-one Worker (functions/index.ts) as `wrangler deploy` bundles it, run in workerd through
// Miniflare (the runtime of `wrangler dev` and the test pool) and reachable over HTTP: for Node tests
// and benchmarks that must go through the shipped bundle rather than the source modules.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The Miniflare that @cloudflare/vitest-plugin (the test pool) runs on; classic options API.
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { unstable_readConfig } from 'wrangler';
import { DEV_CURSOR_SECRET } from '../../shared/http/dev-secrets';

const ROOT = join(import.meta.dirname, '..', '..');
/** As in wrangler.toml. */
const COMPATIBILITY = { compatibilityDate: '2026-11-01', compatibilityFlags: ['nodejs_compat'] };

/**
 * Bundles a Worker of wrangler.toml into `outdir` (a dry-run deploy; `env` '' is the top-level
 * all-in-one Worker, else an area); returns the script.
 */
export function bundleWorker(outdir: string, env = ''): string {
  execFileSync(join(ROOT, 'node_modules/.bin/wrangler'), ['deploy', '--dry-run', '--env', env, '--outdir', outdir], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    cwd: ROOT,
  });
  return join(outdir, 'index.js');
}

export interface RunningWorker {
  /** Where workerd listens (plain HTTP on 127.0.0.1). */
  url: URL;
  mf: Miniflare;
  /** The same Worker in a new isolate (empty module state: a cold start). */
  restart(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * wrangler.toml's top-level [vars] (APP_URL) plus what `npm start` binds besides them: the dev-only
 * CURSOR_SECRET (never in wrangler.toml) with ENVIRONMENT=development.
 */
function devVars(): Record<string, string> {
  const { vars } = unstable_readConfig({ config: 'wrangler.toml' }, { hideWarnings: true });
  return {
    ...Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, String(value)])),
    CURSOR_SECRET: DEV_CURSOR_SECRET,
    ENVIRONMENT: 'development',
  };
}

/**
 * Bundles and starts the all-in-one Worker (or the `env` area's) with wrangler.toml's dev vars and
 * `bindings` (DATABASE_URL, NEON_HTTP_ENDPOINT, UPSTASH_REDIS_REST_URL, ...: a local gateway's, see
 * scripts/gateway).
 */
export async function startWorker(overrides: Record<string, string>, env = ''): Promise<RunningWorker> {
  return startBundled((dir) => ({ scriptPath: bundleWorker(dir, env), modulesRoot: dir }), overrides);
}

/** Bundles a Worker into a scratch directory with `bundle` and runs it in Miniflare with the dev vars and `bindings`. */
export async function startBundled(
  bundle: (dir: string) => { scriptPath: string; modulesRoot: string },
  bindings: Record<string, string>,
): Promise<RunningWorker> {
  const dir = mkdtempSync(join(tmpdir(), 'worker-'));
  try {
    const { scriptPath, modulesRoot } = bundle(dir);
    const running = await runScript(scriptPath, modulesRoot, bindings);
    return {
      ...running,
      async dispose() {
        await running.dispose();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Starts an already bundled Worker script (modules under `dir`) with the dev vars and `overrides`;
 * `compatibilityFlags`: its environment's (a deployed request Worker opts out of Node compatibility, see wrangler.toml);
 * `logs`: each line the Worker logs (Miniflare prints them otherwise).
 */
export async function runScript(
  scriptPath: string,
  dir: string,
  overrides: Record<string, string> = {},
  compatibilityFlags = COMPATIBILITY.compatibilityFlags,
  logs?: (line: string) => void,
): Promise<RunningWorker> {
  const bindings = { ...devVars(), ...overrides };
  const options = convertV4MiniflareOptions({
    workers: [{ name: 'api', modules: true, scriptPath, modulesRoot: dir, ...COMPATIBILITY, compatibilityFlags, bindings }],
    ...(logs ? { handleStructuredLogs: ({ message }: { message: string }) => logs(message) } : {}),
  });
  const mf = new Miniflare(options);
  try {
    const url = await mf.ready;
    // The same port after a restart: callers keep the URL.
    return { url, mf, restart: () => mf.setOptions({ ...options, port: Number(url.port) }), dispose: () => mf.dispose() };
  } catch (err) {
    await mf.dispose();
    throw err;
  }
}
