// The drop's queue consumer (docs/INGEST.md "The drop"): R2 event notifications of the
// `discovery-ingest` bucket arrive here (queue `discovery-ingest`); each new object version gets a
// ledger run, and the runs are applied one at a time per database (a session advisory lock), oldest
// notification first, in chunks within the invocation's budget. A run still going when the budget
// ends is continued by a fresh message; an unreadable file ends failed and goes to the dead-letter
// queue; any other failure (PostgreSQL down) retries the messages, and the run resumes after its last
// committed chunk.
import type { PoolClient } from '@neondatabase/serverless';
import { createClock } from '../../shared/time/clock';
import { createPool } from '../../shared/db/client';
import type { Queryable } from '../../shared/db/queryable';
import { setSessionTimeout, STATEMENT_TIMEOUT_MS } from '../../shared/db/timeout';
import { readConfig, type Bindings } from '../../shared/env';
import { applyRun } from '../../shared/ingest/drop/apply';
import { nextPending, registerRun, stalledRun, type ObjectVersion, type Run } from '../../shared/ingest/drop/ledger';
import { levelOf, log, messageOf } from '../../shared/observability/log';
import { createStore } from '../../shared/db/redis';
import { announcer, FEED_TOPIC } from '../../shared/streams/signal';

/** An R2 event notification (the fields we read). */
export interface ObjectNotification {
  account?: string;
  action: string;
  bucket: string;
  object: { key: string; size?: number; eTag?: string };
  eventTime: string;
}

/** The actions that put a new object version in the bucket; deletions are acknowledged and ignored. */
const NEW_OBJECT: ReadonlySet<string> = new Set(['PutObject', 'CopyObject', 'CompleteMultipartUpload']);

/** Session advisory lock of the drop: one run at a time per database (the CLI's batches take INGEST_LOCK). */
export const DROP_LOCK = 7_420_114;

/** Wall budget per invocation: chunks start until it is spent (Queues consumers get 15 minutes of wall time). */
const DEFAULT_BUDGET_MS = 10 * 60_000;

function versionOf(body: unknown): ObjectVersion | string {
  const n = body as Partial<ObjectNotification> | null;
  if (!n || typeof n !== 'object' || typeof n.action !== 'string' || !n.object || typeof n.object.key !== 'string')
    return 'not an R2 event notification';
  if (!NEW_OBJECT.has(n.action)) return `action ${n.action} ignored`;
  if (typeof n.object.eTag !== 'string' || !n.object.eTag) return 'notification without an eTag';
  const eventTime = typeof n.eventTime === 'string' && !Number.isNaN(Date.parse(n.eventTime)) ? n.eventTime : new Date().toISOString();
  return { key: n.object.key, etag: n.object.eTag, size: Number(n.object.size ?? 0), eventTime };
}

/** The notification a run's continuation or dead letter carries (the same shape R2 sends). */
export function notificationOf(run: Run, bucket = 'discovery-ingest'): ObjectNotification {
  return { action: 'PutObject', bucket, object: { key: run.object_key, size: run.size, eTag: run.etag }, eventTime: run.event_time };
}

export async function ingestQueue(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  const config = readConfig(env);
  const threshold = levelOf(env.LOG_LEVEL);
  const worker = env.WORKER_NAME ?? 'discovery-jobs';
  const write = (level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown>) =>
    log(threshold, level, msg, { worker, queue: batch.queue, ...fields });
  const versions: { message: Message<unknown>; version: ObjectVersion }[] = [];
  for (const message of batch.messages) {
    const version = versionOf(message.body);
    if (typeof version === 'string') {
      write('warn', 'ingest ignored', { message_id: message.id, reason: version, body: JSON.stringify(message.body).slice(0, 200) });
      message.ack();
    } else versions.push({ message, version });
  }
  if (versions.length === 0) return;
  const bucket = env.INGEST_BUCKET;
  const retryAll = (err: unknown) => {
    for (const { message, version } of versions) {
      write('error', 'ingest retry', { message_id: message.id, object_key: version.key, attempt: message.attempts, error: messageOf(err) });
      message.retry({ delaySeconds: Math.min(60, 5 * message.attempts) });
    }
  };
  if (!bucket) return retryAll(new Error('no INGEST_BUCKET binding'));

  const started = Date.now();
  const pool = createPool(config);
  let client: PoolClient | undefined;
  let locked = false;
  try {
    // A connection lost mid-run also surfaces as an 'error' event: the query in flight fails with it and is handled below.
    pool.on('error', () => undefined);
    client = await pool.connect();
    client.on('error', () => undefined);
    await setSessionTimeout(client, config.JOB_STATEMENT_TIMEOUT_MS ?? STATEMENT_TIMEOUT_MS.job);
    // Arrival order: the notifications' event times (a batch may hold them in any order).
    versions.sort((a, b) => Date.parse(a.version.eventTime) - Date.parse(b.version.eventTime));
    for (const { version } of versions) await registerRun(client, version);
    const {
      rows: [{ ok }],
    } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [DROP_LOCK]);
    locked = ok;
    if (!locked) {
      // Another consumer is applying runs on this database: ours wait their turn (in order, after its).
      for (const { message } of versions) message.retry({ delaySeconds: 2 });
      write('info', 'ingest busy', { messages: versions.length });
      return;
    }
    const budgetMs = env.INGEST_BUDGET_MS === undefined ? DEFAULT_BUDGET_MS : Number(env.INGEST_BUDGET_MS);
    const now = createClock(config.NOW).now();
    for (;;) {
      const run = await nextPending(client);
      if (!run) break;
      const outcome = await applyRun(client, bucket, run, {
        budgetMs,
        started,
        now,
        log: (msg, fields) => write('info', msg, fields),
        batchSize: Number(env.INGEST_BATCH_SIZE) || undefined,
        announce: announcer(createStore(config), FEED_TOPIC, (line) => write('warn', line, {})),
      });
      if (outcome.state === 'failed' && outcome.deadLetter) {
        if (env.INGEST_DLQ) await env.INGEST_DLQ.send({ ...notificationOf(run), run_id: run.id, reason: outcome.reason });
        else write('warn', 'ingest dead letter dropped', { run_id: run.id, reason: 'no INGEST_DLQ binding' });
      }
      if (outcome.state === 'paused') {
        // The budget is spent: a fresh message carries the run on (not a retry, which would count toward the DLQ).
        if (!env.INGEST_QUEUE) throw new Error('no INGEST_QUEUE binding to continue the run');
        await env.INGEST_QUEUE.send(notificationOf(run));
        break;
      }
    }
    for (const { message } of versions) message.ack();
  } catch (err) {
    retryAll(err);
  } finally {
    if (client) {
      if (locked) await client.query('SELECT pg_advisory_unlock($1)', [DROP_LOCK]).catch(() => undefined);
      client.release();
    }
    await pool.end().catch(() => undefined);
  }
}

/** A pending run quiet this long has lost its messages (the budget is 10 minutes, a chunk far less). */
const DEFAULT_STALLED_MS = 15 * 60_000;

/**
 * The cron's part (jobs.scheduled): a stalled run gets a fresh notification, and the consumer drains
 * every pending run from it. Returns the run it resumed, if any.
 */
export async function resumeStalled(client: Queryable, env: Bindings): Promise<string | null> {
  if (!env.INGEST_QUEUE) return null;
  const quiet = env.INGEST_STALLED_MS === undefined ? DEFAULT_STALLED_MS : Number(env.INGEST_STALLED_MS);
  const run = await stalledRun(client, quiet);
  if (!run) return null;
  await env.INGEST_QUEUE.send(notificationOf(run));
  return run.id;
}
