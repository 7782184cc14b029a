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

const ROOT = join(import.meta.dirname, '..', '..');
/** As in wrangler.toml. */
const COMPATIBILITY = { compatibilityDate: '2026-11-01', compatibilityFlags: ['nodejs_compat'] };

/** Bundles the top-level Worker of wrangler.toml into `outdir` (a dry-run deploy); returns the script. */
export function bundleWorker(outdir: string): string {
  execFileSync(join(ROOT, 'node_modules/.bin/wrangler'), ['deploy', '--dry-run', '--env', '', '--outdir', outdir], {
    stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, WRANGLER_SEND_METRICS: 'false' }, cwd: ROOT,
  });
  return join(outdir, 'index.js');
}

export interface RunningWorker {
  /** Where workerd listens (plain HTTP on 127.0.0.1). */
  url: URL;
  mf: Miniflare;
  dispose(): Promise<void>;
}

/** wrangler.toml's top-level [vars] (APP_URL, the dev-only CURSOR_SECRET): what `wrangler dev` would bind. */
function devVars(): Record<string, string> {
  const { vars } = unstable_readConfig({ config: 'wrangler.toml' });
  return Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, String(value)]));
}

/**
 * Bundles and starts the all-in-one Worker with wrangler.toml's dev vars and `bindings`
 * (DATABASE_URL, NEON_HTTP_ENDPOINT, UPSTASH_REDIS_REST_URL, ...: a local gateway's, see scripts/gateway).
 */
export async function startWorker(overrides: Record<string, string>): Promise<RunningWorker> {
  return startBundled((dir) => ({ scriptPath: bundleWorker(dir), modulesRoot: dir }), { ...devVars(), ...overrides });
}

/** Bundles a Worker into a scratch directory with `bundle` and runs it in Miniflare with `bindings`. */
export async function startBundled(
  bundle: (dir: string) => { scriptPath: string; modulesRoot: string }, bindings: Record<string, string>,
): Promise<RunningWorker> {
  const dir = mkdtempSync(join(tmpdir(), 'worker-'));
  let mf: Miniflare | undefined;
  try {
    const { scriptPath, modulesRoot } = bundle(dir);
    mf = new Miniflare(convertV4MiniflareOptions({
      workers: [{ name: 'api', modules: true, scriptPath, modulesRoot, ...COMPATIBILITY, bindings }],
    }));
    const url = await mf.ready;
    const running = mf;
    return {
      url, mf: running,
      async dispose() {
        await running.dispose();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await mf?.dispose();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
