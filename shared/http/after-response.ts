// Work after the answer: the platform keeps the request alive for it (ctx.waitUntil).
import type { Context } from 'hono';
import type { Env } from '../env';

/** Work after the answer (ctx.waitUntil); without an execution context (app.request in tests) the caller awaits it. */
export function afterResponse(c: Context<Env>, work: Promise<unknown>): Promise<unknown> {
  try {
    c.executionCtx.waitUntil(work);
    return Promise.resolve();
  } catch {
    return work;
  }
}

/**
 * How long work after the answer waits before it starts. One timer tick was not enough: modules a
 * Worker's first 401 evaluated one tick later (the auth-failure count's limiter and Redis client) held
 * its answer back; with this wait a deployed Worker's first keyless request in workerd is as fast as with
 * no count at all (docs/PERFORMANCE.md "The first request", docs/BENCHMARKS.md "Startup and bundles").
 */
const AFTER_ANSWER_MS = 10;

/** Resolves once the answer has gone (AFTER_ANSWER_MS): where work after the answer starts. */
export const answerGone = () => new Promise((resolve) => setTimeout(resolve, AFTER_ANSWER_MS));
