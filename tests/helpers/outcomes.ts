// The aggregate cache's outcome of requests, read from their log lines (the `cache` field): the
// X-Aggregate-Cache header goes to internal keys only (docs/SECURITY.md "Tenants"), so project-key tests read the log.
import { vi } from 'vitest';
import type { CallOptions, Reply, World } from './world';

/** Runs `work` and returns its value and the `cache` field of every request log line written meanwhile, in order. */
export async function withOutcomes<T>(work: () => Promise<T>): Promise<{ value: T; outcomes: string[] }> {
  const outcomes: string[] = [];
  const spies = (['log', 'warn', 'error'] as const).map((method) =>
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      try {
        const line = JSON.parse(String(args[0])) as { msg?: string; cache?: string };
        if (line.msg === 'request' && typeof line.cache === 'string') outcomes.push(line.cache);
      } catch {
        // not a structured line
      }
    }),
  );
  try {
    return { value: await work(), outcomes };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** The one outcome of one request. */
export async function outcomeOf<T>(work: () => Promise<T>): Promise<{ value: T; outcome: string | undefined }> {
  const { value, outcomes } = await withOutcomes(work);
  return { value, outcome: outcomes.at(-1) };
}

/** Request log lines are `info`: tests run at LOG_LEVEL warn, so calls read through these helpers log at info. */
export const LOGGED = { LOG_LEVEL: 'info' } as const;

/** world.call, plus the aggregate cache's outcome of that call (`none` when it made no aggregate). */
export async function callWithOutcome(world: World, path: string, options: CallOptions = {}): Promise<Reply & { outcome: string }> {
  const { value, outcomes } = await withOutcomes(() => world.call(path, { ...options, env: { ...LOGGED, ...options.env } }));
  return Object.assign(value, { outcome: outcomes.at(-1) ?? 'none' });
}
