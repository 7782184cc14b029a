// The jobs Worker: the queue consumer and the cron triggers (jobs.ts), loaded on the isolate's first
// event rather than at startup (shared/http/lazy-area.ts); it serves no routes.
import type { Bindings } from '../../shared/env';
import type { JobMessage } from './jobs';

const load = () => import('./jobs').then((m) => m.jobs);

export default {
  fetch: () => Response.json({ detail: 'The jobs Worker serves no routes' }, { status: 404 }),
  queue: async (batch, env, ctx) => (await load()).queue(batch, env, ctx),
  scheduled: async (controller, env, ctx) => (await load()).scheduled(controller, env, ctx),
} satisfies ExportedHandler<Bindings, JobMessage>;
