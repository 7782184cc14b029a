// `npm start` on embedded defaults (no DATABASE_URL/REDIS_URL) for the Node tests that drive it as
// a newcomer would (scripts/lib/npm-start.ts, as the benches start it).
import type { ChildProcess } from 'node:child_process';
import { startNpmStart } from '../../../scripts/lib/npm-start';

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
  const api = await startNpmStart({ dataDir, env, embedded: true, readyWithinMs });
  return { base: api.base, child: api.child, output: api.output, stop: () => void api.stop() };
}
