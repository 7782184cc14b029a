// The all-in-one Worker that local development runs: every route, plus queue and cron. Its app is
// built on the first request (its route tables load their modules asynchronously: combined-app.ts).
import type { Bindings } from '../shared/env';
import { lazyApp } from '../shared/http/lazy-area';
import { combinedApp } from './combined-app';
import { DEV_DROP_PATH, devDrop } from './dev/drop';
import { jobs, type JobMessage } from './jobs/jobs';

const app = lazyApp(combinedApp);

export default {
  // `npm run drop` writes into the local bucket through this route (development only: functions/dev/drop.ts).
  fetch: (request, env, ctx) => (new URL(request.url).pathname === DEV_DROP_PATH ? devDrop(request, env) : app.fetch(request, env, ctx)),
  queue: jobs.queue,
  scheduled: jobs.scheduled,
} satisfies ExportedHandler<Bindings, JobMessage>;
