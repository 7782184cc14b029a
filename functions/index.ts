// The all-in-one Worker that local development runs: every route, plus queue and cron. Its app is
// built on the first request (its route tables load their modules asynchronously: combined-app.ts).
import type { Bindings } from '../shared/env';
import { lazyApp } from '../shared/lazy-area';
import { combinedApp } from './combined-app';
import { jobs, type JobMessage } from './jobs/jobs';

const app = lazyApp(combinedApp);

export default {
  fetch: app.fetch,
  queue: jobs.queue,
  scheduled: jobs.scheduled,
} satisfies ExportedHandler<Bindings, JobMessage>;
