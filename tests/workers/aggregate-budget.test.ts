// One project cannot fill the cron's warm queue for everyone (a per-project cap on recently asked
// aggregates), and an aggregate estimated over the inline budget is queued (503 `computing`), never
// computed inside the request: written as the attacks and their refusals
// (docs/SECURITY.md "The warm queue per project", "Cost-based queueing").
import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../functions/index';
import type { AggregateJob } from '../../shared/aggregates/kind';
import { dueForWarming, MAX_RECENT_PER_OWNER, noteAsked } from '../../shared/aggregates/recent';
import { createList } from '../../shared/admin/lists';
import { readConfig } from '../../shared/env';
import { createStore, type Store } from '../../shared/db/redis';
import { articleAndTrendRecords, CUP_FINAL, NOW } from '../fixtures/articles';
import { seed } from '../helpers/seed';
import { createWorld, show, type World } from '../helpers/world';

const TREND = CUP_FINAL;

let world: World;
let store: Store;

beforeAll(async () => {
  world = await createWorld('aggregate_budget');
  world.setNow(NOW);
  await seed(world, articleAndTrendRecords());
  store = createStore(readConfig({ ...world.env }));
}, 60_000);

/** A queue binding that keeps what it is sent. */
function collector() {
  const sent: AggregateJob[] = [];
  const queue = {
    send: async (body: AggregateJob) => void sent.push(body),
    sendBatch: async (b: { body: AggregateJob }[]) => void sent.push(...b.map((m) => m.body)),
  };
  return { sent, queue };
}

const job = (owner: string, i: number): AggregateJob => ({
  type: 'aggregate',
  kind: 'trends.rollup',
  request: { owner, i },
  cacheKey: store.key('agg', 'test', owner, String(i)),
});

describe('attack: one project asks thousands of distinct aggregates to jam the cron warmer', () => {
  it(`only its newest ${MAX_RECENT_PER_OWNER} stay due; another project's are all still warmed`, async () => {
    const now = Date.now();
    // 3 x the cap from the noisy project, oldest first, and 3 from a quiet one in between.
    for (let i = 0; i < 3 * MAX_RECENT_PER_OWNER; i++) await noteAsked(store, job('noisy', i), 'noisy', now - 60_000 + i);
    for (let i = 0; i < 3; i++) await noteAsked(store, job('quiet', i), 'quiet', now - 30_000 + i);
    const due = await dueForWarming(store, now);
    const noisy = due.filter((j) => (j.request as { owner: string }).owner === 'noisy').map((j) => (j.request as { i: number }).i);
    expect(noisy.sort((a, b) => a - b)).toEqual(Array.from({ length: MAX_RECENT_PER_OWNER }, (_, k) => 2 * MAX_RECENT_PER_OWNER + k));
    expect(due.filter((j) => (j.request as { owner: string }).owner === 'quiet')).toHaveLength(3);

    // The cron sends exactly those (the test kind is one the deployment knows).
    const { sent, queue } = collector();
    const cron = createExecutionContext();
    await worker.scheduled(createScheduledController() as any, { ...world.env, JOBS_QUEUE: queue } as any, cron);
    await waitOnExecutionContext(cron);
    expect(sent.filter((j) => j.kind === 'trends.rollup')).toHaveLength(MAX_RECENT_PER_OWNER + 3);
  });

  it('a request records its aggregate under its own project', async () => {
    const { key, projectId } = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
    const reply = await world.call(`/v1/trends/${TREND}/rollup?period=7d`, { key });
    expect(reply.status, show(reply)).toBe(200);
    const mine = await store.text.zrange<string[]>(store.key('recent-aggregates', 'owner', projectId), 0, -1);
    expect(mine).toHaveLength(1);
    expect(JSON.parse(mine[0])).toMatchObject({ kind: 'trends.rollup', request: { trendId: TREND } });
  });
});

describe('attack: more due work than one Queues batch holds', () => {
  it('the cron sends every warmer and every scan, scans first, in batches the Queues limits accept', async () => {
    const { projectId } = await world.tenant();
    const list = (
      await createList(
        world.db,
        {
          projectId,
          kind: 'mention',
          name: 'Energy',
          countries: ['US'],
          langs: ['en'],
          searchScope: 'both',
          createdAt: new Date(NOW),
          terms: [{ keyword: 'heat pump', matchType: 'broad' }],
        },
        new Date(NOW),
      )
    ).id;
    await world.db.$client.query(`UPDATE tracking_lists SET next_scan_at = NULL WHERE id = $1`, [list]); // due now
    const now = Date.now();
    // Three tenants at their cap: more than the 100 messages one sendBatch takes.
    for (const owner of ['t1', 't2', 't3']) {
      for (let i = 0; i < MAX_RECENT_PER_OWNER; i++) await noteAsked(store, job(owner, i), owner, now - 20_000 + i);
    }
    const batches: { type: string }[][] = [];
    // Cloudflare Queues refuses a sendBatch over 100 messages or 256 KB: so does this binding.
    const queue = {
      send: async () => {
        throw new Error('the cron sends batches');
      },
      sendBatch: async (messages: { body: { type: string } }[]) => {
        if (messages.length > 100 || new TextEncoder().encode(JSON.stringify(messages)).byteLength > 256 * 1024)
          throw new Error('batch over the Queues limits');
        batches.push(messages.map((m) => m.body));
      },
    };
    const cron = createExecutionContext();
    await worker.scheduled(createScheduledController() as any, { ...world.env, JOBS_QUEUE: queue } as any, cron);
    await waitOnExecutionContext(cron);
    const sent = batches.flat() as (AggregateJob | { type: 'scan'; listId: string })[];
    expect(sent[0]).toEqual({ type: 'scan', listId: list });
    const owners = sent.flatMap((j) => (j.type === 'aggregate' ? [(j.request as { owner: string }).owner] : []));
    for (const owner of ['t1', 't2', 't3']) expect(owners.filter((o) => o === owner)).toHaveLength(MAX_RECENT_PER_OWNER);
    expect(batches.length).toBeGreaterThan(1);
  });
});

describe('attack: a category-limited plan ranks trending entities over a raw scan', () => {
  const path = '/v1/entities/trending?region=US&period=7d';

  it('over the inline budget -> 503 computing + Retry-After, one job; the consumer computes it; then 200 as inline', async () => {
    const limited = await world.tenant({ plan: 'grow', countries: ['US', 'GB', 'DE'], categories: ['/Sports'] });
    const { sent, queue } = collector();
    const call = (env: Record<string, string> = {}) =>
      world.call(path, { key: limited.key, env: { AGGREGATE_INLINE_COST: '1', ...env }, queue } as any);
    const cold = await call();
    expect(cold.status, show(cold)).toBe(503);
    expect(cold.headers.get('retry-after')).toBe('15');
    expect(cold.body.detail.code).toBe('computing');
    expect(sent.map((j) => j.kind)).toEqual(['entities.trending']);

    const batch = createMessageBatch('discovery-jobs', [{ id: 't1', timestamp: new Date(), attempts: 1, body: sent[0] }]);
    const ctx = createExecutionContext();
    await worker.queue(batch as any, { ...world.env } as any, ctx);
    expect(await getQueueResult(batch, ctx)).toMatchObject({ explicitAcks: ['t1'], retryMessages: [] });
    const warm = await call();
    expect(warm.status, show(warm)).toBe(200);

    // The same question under the default budget (the demo-sized data is far below it): computed inline, equal.
    const other = await world.tenant({ plan: 'grow', countries: ['US', 'GB', 'DE'], categories: ['/Sports'] });
    const inline = await world.call(path, { key: other.key });
    expect(inline.status, show(inline)).toBe(200);
    expect(warm.body).toEqual(inline.body);
    expect(inline.body.trending_entities.length).toBeGreaterThan(0);
  });

  it('a plan with every category reads the roll-ups: never queued by this estimate', async () => {
    const full = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
    const { sent, queue } = collector();
    const reply = await world.call(path, { key: full.key, env: { AGGREGATE_INLINE_COST: '1' }, queue } as any);
    expect(reply.status, show(reply)).toBe(200);
    expect(sent).toHaveLength(0);
  });
});
