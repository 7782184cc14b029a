// The jobs Worker: queue consumer (roll-ups) and cron triggers (cache warmers); no public routes.
import type { Bindings } from '../../shared/env';

export interface JobMessage {
  type: string;
  [field: string]: unknown;
}

export const jobs = {
  async queue(batch: MessageBatch<JobMessage>, _env: Bindings, _ctx: ExecutionContext): Promise<void> {
    for (const message of batch.messages) {
      // No job types exist yet; acknowledge so unknown messages do not loop forever.
      console.warn('unknown job type', message.body?.type);
      message.ack();
    }
  },
  async scheduled(_controller: ScheduledController, _env: Bindings, _ctx: ExecutionContext): Promise<void> {
    // Cache warmers arrive with the tracking-lists issue.
  },
};

export default {
  fetch: () => new Response(JSON.stringify({ detail: 'The jobs Worker serves no routes' }), {
    status: 404,
    headers: { 'content-type': 'application/json' },
  }),
  ...jobs,
} satisfies ExportedHandler<Bindings, JobMessage>;
