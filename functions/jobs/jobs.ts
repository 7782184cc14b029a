// The jobs Worker's work: the queue consumer (aggregates, mention scans) and the cron triggers
// (cache warmer, scans due); no public routes. The jobs Worker (index.ts) loads it on first use.
import type { PoolClient } from '@neondatabase/serverless';
import { createClock } from '../../shared/time/clock';
import { createDb, createPool } from '../../shared/db/client';
import { setSessionTimeout, STATEMENT_TIMEOUT_MS } from '../../shared/db/timeout';
import { readConfig, type Bindings, type Config, type JobQueue } from '../../shared/env';
import { pruneWindowHistory, slideIfBehind, windowEnd } from '../../shared/feed/windows';
import { levelOf, log, messageOf } from '../../shared/observability/log';
import { createStore } from '../../shared/db/redis';
import { completeAggregate } from '../../shared/aggregates/complete';
import type { AggregateJob } from '../../shared/aggregates/kind';
import { dueForWarming } from '../../shared/aggregates/recent';
import { aggregateKind } from './aggregates';
import { listsDueForScan, scanMentionList } from './scan';
import { announcer, listTopic } from '../../shared/streams/signal';

export interface ScanJob {
  type: 'scan';
  listId: string;
}

export type JobMessage = AggregateJob | ScanJob;

/** The queue R2 event notifications of the drop bucket go to (wrangler.toml). */
export const INGEST_QUEUE_NAME = 'discovery-ingest';

/** Queues limits per sendBatch: 100 messages and 256 KB in total (with headroom for framing). */
const BATCH_MESSAGES = 100;
const BATCH_BYTES = 200_000;

/** Messages in batches within the Queues limits, in order. */
export function chunkMessages<T>(messages: T[]): T[][] {
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = new TextEncoder().encode(JSON.stringify(message)).byteLength;
    if (chunk.length && (chunk.length === BATCH_MESSAGES || bytes + size > BATCH_BYTES)) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(message);
    bytes += size;
  }
  if (chunk.length) chunks.push(chunk);
  return chunks;
}

/** Sends in chunks; one refused chunk is logged and does not stop the others. */
/** Sends in chunks within the Queues limits; a refused chunk is reported and the rest still go. Returns how many were sent. */
async function sendAll(queue: JobQueue, messages: JobMessage[], refused: (err: unknown) => void): Promise<number> {
  let sent = 0;
  for (const chunk of chunkMessages(messages)) {
    await queue.sendBatch(chunk.map((body) => ({ body }))).then(() => void (sent += chunk.length), refused);
  }
  return sent;
}

function services(env: Bindings) {
  const config = readConfig(env);
  return { config, db: createDb(config, jobTimeout(config), false), store: createStore(config), clock: createClock(config.NOW) };
}

const jobTimeout = (config: Config) => config.JOB_STATEMENT_TIMEOUT_MS ?? STATEMENT_TIMEOUT_MS.job;

async function withClient<T>(env: Bindings, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const config = readConfig(env);
  const pool = createPool(config);
  const client = await pool.connect();
  try {
    await setSessionTimeout(client, jobTimeout(config));
    return await work(client);
  } finally {
    client.release();
    await pool.end();
  }
}

export const jobs = {
  async queue(batch: MessageBatch<JobMessage>, env: Bindings, _ctx: ExecutionContext): Promise<void> {
    // The drop's notifications (R2 -> queue discovery-ingest): the ingest consumer, loaded on first use.
    if (batch.queue === INGEST_QUEUE_NAME) return (await import('./ingest')).ingestQueue(batch, env);
    const { config, db, store, clock } = services(env);
    const threshold = levelOf(env.LOG_LEVEL);
    const worker = env.WORKER_NAME ?? 'discovery-jobs';
    for (const message of batch.messages) {
      const job = message.body;
      const started = Date.now();
      // One log line per job: what it was, how it ended, how long it took.
      const fields = () => ({
        worker,
        message_id: message.id,
        type: job?.type ?? null,
        kind: job?.type === 'aggregate' ? job.kind : null,
        list_id: job?.type === 'scan' ? job.listId : null,
        attempt: message.attempts,
        duration_ms: Date.now() - started,
      });
      try {
        const kind = job?.type === 'aggregate' ? aggregateKind(job.kind) : undefined;
        let outcome = 'done';
        // A refusal (a 4xx no retry changes) is stored for the caller: the job is done, not retried.
        if (kind)
          outcome =
            (await completeAggregate({ db, store, config, now: clock.now() }, kind, job as AggregateJob)) === 'refused'
              ? 'refused'
              : 'done';
        else if (job?.type === 'scan') {
          await withClient(env, (client) => scanMentionList(client, job.listId, clock.now()));
          // The list's match streams read the scan's matches once it told them (shared/streams/signal.ts).
          await announcer(store, listTopic(job.listId))();
        } else {
          log(threshold, 'warn', 'job dropped', { ...fields(), outcome: 'dropped', job: JSON.stringify(job).slice(0, 200) });
          message.ack();
          continue;
        }
        message.ack();
        log(threshold, outcome === 'refused' ? 'warn' : 'info', 'job', { ...fields(), outcome });
      } catch (err) {
        // Retried with backoff; after max_retries the platform moves it to the dead-letter queue.
        // An aggregate's lock expires on its own TTL, so a failed job never blocks its request for long.
        log(threshold, 'error', 'job', { ...fields(), outcome: 'retry', error: messageOf(err) });
        message.retry({ delaySeconds: 5 * message.attempts });
      }
    }
  },

  async scheduled(controller: ScheduledController, env: Bindings, _ctx: ExecutionContext): Promise<void> {
    const { db, store, clock } = services(env);
    const threshold = levelOf(env.LOG_LEVEL);
    const started = Date.now();
    const failures: string[] = [];
    const failed = (step: string) => (err: unknown) => void failures.push(`${step}: ${messageOf(err)}`);
    // Feed windows follow the clock's hour (a request that finds them behind slides them itself).
    const end = windowEnd(clock.now());
    await slideIfBehind(db, end).catch(failed('feed windows slide'));
    // Cursor snapshots older than a cursor's lifetime (docs/DATA.md "Feed snapshots").
    await pruneWindowHistory(db).catch(failed('feed history prune'));
    // A drop run whose messages are gone (docs/INGEST.md "The drop") gets a fresh one.
    const resumed = env.INGEST_QUEUE
      ? await import('./ingest')
          .then((m) => withClient(env, (client) => m.resumeStalled(client, env)))
          .catch((err) => void failed('ingest resume')(err))
      : null;
    let queued = 0;
    try {
      // Wall time, like the scores serveAggregate writes: cache freshness is not business time.
      // Only kinds this deployment still knows (a renamed kind's old entries age out within the hour).
      const due: JobMessage[] = (await dueForWarming(store, Date.now())).filter((job) => aggregateKind(job.kind));
      const scans = await withClient(env, (client) => listsDueForScan(client, clock.now()));
      if (env.JOBS_QUEUE) {
        // Scans go apart from warmers, first: however many aggregates one tenant left due, scans are sent.
        queued += await sendAll(
          env.JOBS_QUEUE,
          scans.map((listId): ScanJob => ({ type: 'scan', listId })),
          failed('scan batch'),
        );
        queued += await sendAll(env.JOBS_QUEUE, due, failed('warmer batch'));
      }
    } catch (err) {
      failed('queue due work')(err);
      throw err;
    } finally {
      // One log line per cron run.
      log(threshold, failures.length ? 'error' : 'info', 'cron', {
        worker: env.WORKER_NAME ?? 'discovery-jobs',
        cron: controller.cron,
        duration_ms: Date.now() - started,
        queued,
        ingest_resumed: resumed ?? null,
        failures,
      });
    }
  },
};
