// Work after the answer: the platform keeps the request alive for it (ctx.waitUntil).
import type { Context } from 'hono';
import type { Env } from './env';

/** Work after the answer (ctx.waitUntil); without an execution context (app.request in tests) the caller awaits it. */
export function afterResponse(c: Context<Env>, work: Promise<unknown>): Promise<unknown> {
  try {
    c.executionCtx.waitUntil(work);
    return Promise.resolve();
  } catch {
    return work;
  }
}
