// The jobs Worker: the queue consumer (aggregates, mention scans) and the cron triggers
// (cache warmer, scans due); no public routes.
import { createClock } from '../../shared/clock';
import { createDb } from '../../shared/db/client';
import { readConfig, type Bindings } from '../../shared/env';
import { createStore } from '../../shared/redis';
import { completeAggregate, dueForWarming, type AggregateJob } from '../tracking/aggregate';

export type JobMessage = AggregateJob;

function services(env: Bindings) {
  const config = readConfig(env);
  return { config, db: createDb(config), store: createStore(config), clock: createClock(config.NOW) };
}

export const jobs = {
  async queue(batch: MessageBatch<JobMessage>, env: Bindings, _ctx: ExecutionContext): Promise<void> {
    const { config, db, store, clock } = services(env);
    for (const message of batch.messages) {
      const job = message.body;
      if (job?.type !== 'aggregate') {
        console.warn('dropping unknown job', JSON.stringify(job).slice(0, 200));
        message.ack();
        continue;
      }
      try {
        await completeAggregate(db, store, config.APP_URL, job, clock.now());
        message.ack();
      } catch (err) {
        // Retried with backoff; after max_retries the platform moves it to the dead-letter queue.
        // The lock expires on its own TTL, so a failed job never blocks the request for long.
        console.error('aggregate job failed', (err as Error).message);
        message.retry({ delaySeconds: 5 * message.attempts });
      }
    }
  },

  async scheduled(_controller: ScheduledController, env: Bindings, _ctx: ExecutionContext): Promise<void> {
    const { store } = services(env);
    // Wall time, like the scores serveAggregate writes: cache freshness is not business time.
    const due = await dueForWarming(store, Date.now());
    if (due.length && env.JOBS_QUEUE) await env.JOBS_QUEUE.sendBatch(due.map((body) => ({ body })));
  },
};

export default {
  fetch: () => new Response(JSON.stringify({ detail: 'The jobs Worker serves no routes' }), {
    status: 404,
    headers: { 'content-type': 'application/json' },
  }),
  ...jobs,
} satisfies ExportedHandler<Bindings, JobMessage>;
