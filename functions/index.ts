// The all-in-one Worker that local development runs: every route, plus queue and cron.
import type { Bindings } from '../shared/env';
import { combinedApp } from './app';
import { jobs, type JobMessage } from './jobs/jobs';

const app = combinedApp();

export default {
  fetch: app.fetch,
  queue: jobs.queue,
  scheduled: jobs.scheduled,
} satisfies ExportedHandler<Bindings, JobMessage>;
