// `npm start` on embedded defaults (no DATABASE_URL/REDIS_URL) for the Node tests that drive it as
// a newcomer would, and a free loopback port.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../../scripts/lib/throwaway';

export { freePort };

export interface StartedApi {
  base: string;
  child: ChildProcess;
  /** Everything npm start printed so far. */
  output(): string;
  /** Ends npm start and everything it spawned. */
  stop(): void;
}

/** Spawns `npm start` with `DATA_DIR` and `env`, and waits until /openapi.json answers (else throws with its output). */
export async function startEmbedded(dataDir: string, env: Record<string, string>, readyWithinMs: number): Promise<StartedApi> {
  const port = await freePort();
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir, ...env };
  delete childEnv.DATABASE_URL;
  delete childEnv.REDIS_URL;
  const child = spawn('npm', ['start'], { env: childEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (b) => (output += b));
  child.stderr!.on('data', (b) => (output += b));
  const api: StartedApi = {
    base: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    stop: () => {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    },
  };
  const deadline = Date.now() + readyWithinMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited:\n${output.slice(-3_000)}`);
    try {
      if ((await fetch(`${api.base}/openapi.json`, { signal: AbortSignal.timeout(2_000) })).ok) return api;
    } catch {}
    await new Promise((r) => setTimeout(r, 1_000));
  }
  api.stop();
  throw new Error(`not ready:\n${output.slice(-3_000)}`);
}
