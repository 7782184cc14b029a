// The drop as the crawler and the platform make it, inside workerd: a file put into the real
// (miniflare) bucket binding, its R2 event notification delivered to the Worker's queue handler as a
// real message batch (ack / retry read back from the pool's queue machinery), and what the consumer
// sends on (continuations, dead letters) recorded.
import { createExecutionContext, createMessageBatch, env, getQueueResult } from 'cloudflare:test';
import worker from '../../functions/index';
import type { ObjectNotification } from '../../functions/jobs/ingest';
import type { World } from './world';

export interface Sent {
  continued: ObjectNotification[];
  dead: (ObjectNotification & { run_id: string; reason: string })[];
}

const recorder = (into: unknown[]) => ({
  send: async (body: unknown) => void into.push(body),
  sendBatch: async (messages: Iterable<{ body: unknown }>) => void into.push(...[...messages].map((m) => m.body)),
});

/** gzip of `text` (CompressionStream, as a crawler's gzip writer would produce). */
export async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export const ndjson = (records: object[]) => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;

let clock = Date.parse('2026-12-01T00:00:00Z');

/** Puts `body` at `key` in the bucket; returns the notification R2 would send for it. */
export async function drop(key: string, body: string | Uint8Array): Promise<ObjectNotification> {
  const object = await env.INGEST_BUCKET.put(key, body);
  if (!object) throw new Error(`the bucket refused ${key}`);
  clock += 1000;
  return {
    account: 'test',
    action: 'PutObject',
    bucket: 'discovery-ingest',
    object: { key, size: object.size, eTag: object.etag },
    eventTime: new Date(clock).toISOString(),
  };
}

let ids = 0;

/** Delivers the notifications as one batch to the all-in-one Worker's queue handler. */
export async function deliver(
  world: World,
  notifications: ObjectNotification[],
  options: { attempts?: number; env?: Record<string, string> } = {},
) {
  const sent: Sent = { continued: [], dead: [] };
  const messages = notifications.map((body) => ({ id: `m${++ids}`, timestamp: new Date(), attempts: options.attempts ?? 1, body }));
  const batch = createMessageBatch('discovery-ingest', messages);
  const ctx = createExecutionContext();
  await worker.queue(
    batch as any,
    {
      ...world.env,
      ...options.env,
      INGEST_BUCKET: env.INGEST_BUCKET,
      INGEST_QUEUE: recorder(sent.continued),
      INGEST_DLQ: recorder(sent.dead),
    } as any,
    ctx,
  );
  const result = await getQueueResult(batch, ctx);
  return { result, sent, ids: messages.map((m) => m.id) };
}

/** Delivers until the run of `n` ends (each continuation as the queue would), as many rounds as it takes. */
export async function deliverUntilDone(world: World, n: ObjectNotification, options: { env?: Record<string, string> } = {}) {
  let pending = [n];
  let rounds = 0;
  while (pending.length > 0 && rounds++ < 200) pending = (await deliver(world, pending, options)).sent.continued;
  return rounds;
}

export interface RunRow {
  id: string;
  object_key: string;
  state: string;
  reason: string | null;
  lines_done: number;
  read: number;
  loaded: number;
  skipped: number;
  chunks: number;
  started_at: string | null;
  finished_at: string | null;
}

export async function runOf(world: World, n: ObjectNotification): Promise<RunRow | undefined> {
  const { rows } = await world.pool().query<RunRow>(
    `SELECT id::text, object_key, state, reason, lines_done, read, loaded, skipped, chunks, started_at::text, finished_at::text
     FROM ingest_runs WHERE object_key = $1 AND etag = $2`,
    [n.object.key, n.object.eTag],
  );
  return rows[0];
}

export async function errorsOf(world: World, runId: string) {
  const { rows } = await world
    .pool()
    .query<{ line: number; reason: string }>('SELECT line, reason FROM ingest_run_errors WHERE run_id = $1 ORDER BY line', [runId]);
  return rows;
}

/** What a load leaves in the tables it writes (roll-ups included), without the load's own clock columns. */
const TABLES = [
  'observations',
  'articles',
  'url_profiles',
  'market_days',
  'url_dimensions',
  'url_spans',
  'dim_hours',
  'dim_days',
  'article_entities',
  'article_categories',
  'trends',
  'trend_articles',
  'trend_days',
  'entities',
  'publishers',
  'data_watermark',
];

export async function tableDigests(world: World): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of TABLES) {
    // The dimension series name their key by a number given in arrival order: compared by the key itself.
    const row = table.startsWith('dim_')
      ? `to_jsonb(t) - 'key_id' || jsonb_build_object('kind', k.kind, 'key', k.key) FROM ${table} t JOIN dim_keys k ON k.id = t.key_id`
      : `to_jsonb(t) - 'updated_at' - 'created_at' FROM ${table} t`;
    const { rows } = await world
      .pool()
      .query<{ n: number; digest: string | null }>(
        `SELECT count(*)::int AS n, md5(string_agg(r::text, '|' ORDER BY r::text)) AS digest FROM (SELECT ${row}) x(r)`,
      );
    out[table] = `${rows[0]!.n}:${rows[0]!.digest}`;
  }
  return out;
}
