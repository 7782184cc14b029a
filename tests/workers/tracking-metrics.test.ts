// GET /v1/tracking/lists/{id}/metrics and /rollup: numbers against the raw-observation oracle,
// every error code, and the 503 computing -> queue -> 200 cycle with the cron warmer.
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
import { createList } from '../../shared/admin/lists';
import { updateProject } from '../../shared/admin/projects';
import { forgetCachedKeys } from '../../shared/auth/keys';
import { queryRows } from '../../shared/db/raw';
import { createStore } from '../../shared/db/redis';
import { readConfig } from '../../shared/env';
import { CATEGORIES, dataset, DOMAINS, naiveDistinct, naiveSeries, TRENDS } from '../fixtures/oracle';
import { seed } from '../helpers/seed';
import { createWorld, show, type Tenant, type World } from '../helpers/world';
import { listedScope } from '../helpers/scope';

const NOW = '2026-11-10T10:30:00.000Z';
let world: World;
let tenant: Tenant;
let other: Tenant;
const lists: Record<string, string> = {};
let entityIds: string[];

beforeAll(async () => {
  world = await createWorld('tracking_metrics');
  world.setNow(NOW);
  for (const batch of dataset()) await seed(world, batch);
  tenant = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
  other = await world.tenant({ plan: 'scale', countries: ['US'] });
  entityIds = (await queryRows<{ id: string }>(world.db, 'SELECT id::text FROM entities ORDER BY normalized_name')).map((r) => r.id);
  const now = new Date(NOW);
  const at = (i: number) => new Date(now.getTime() - (i + 1) * 3_600_000);
  const make = async (name: string, input: Parameters<typeof createList>[1]) => (lists[name] = (await createList(world.db, input, now)).id);
  await make('entity', {
    projectId: tenant.projectId,
    kind: 'entity',
    name: 'People',
    items: [
      ...entityIds.slice(0, 3).map((key, i) => ({ key, addedAt: at(i) })),
      { key: 'Grace Hopper', addedAt: at(3) },
      { key: 'Nobody Known', addedAt: at(4) },
    ],
  });
  await make('category', {
    projectId: tenant.projectId,
    kind: 'category',
    name: 'Sections',
    items: CATEGORIES.map((key, i) => ({ key, addedAt: at(i) })),
  });
  await make('publisher', {
    projectId: tenant.projectId,
    kind: 'publisher',
    name: 'Rivals',
    items: DOMAINS.map((key, i) => ({ key, addedAt: at(i) })),
  });
  await make('trend', {
    projectId: tenant.projectId,
    kind: 'trend',
    name: 'Stories',
    items: TRENDS.map((key, i) => ({ key, addedAt: at(i) })),
  });
  await make('large', {
    projectId: tenant.projectId,
    kind: 'entity',
    name: 'Large',
    items: Array.from({ length: 501 }, (_, i) => ({ key: `Name ${i}` })),
  });
  await make('foreign', { projectId: other.projectId, kind: 'entity', name: 'Theirs', items: [{ key: 'Ada Lovelace' }] });
}, 120_000);

const metrics = (list: string, query = '', key = tenant.key, env?: Record<string, string>) =>
  world.call(`/v1/tracking/lists/${lists[list]}/metrics${query}`, { key, env });

describe('metrics (happy)', () => {
  it('entity rows equal the raw-observation oracle over the default 7-day window', async () => {
    const reply = await metrics('entity');
    expect(reply.status, show(reply)).toBe(200);
    const { scope, items, summary } = reply.body;
    expect(scope).toEqual({
      country: 'all',
      markets: ['de', 'gb', 'us'],
      lang: 'all',
      from: '2026-11-04T00:00:00+00:00',
      to: '2026-11-10T10:30:00+00:00',
      grain: 'day',
      prev_from: '2026-10-28T13:30:00+00:00',
      prev_to: '2026-11-04T00:00:00+00:00',
      history_days: 365,
      clamped: false,
    });
    expect(reply.body).toMatchObject({ list_id: lists.entity, kind: 'entity', total: 5, limit: 50, offset: 0 });
    expect(items.map((r: any) => r.key)).toEqual([...entityIds.slice(0, 3), 'Grace Hopper', 'Nobody Known']);
    const dim = { kind: 'entity' as const, keys: entityIds, keyScope: await listedScope(world.db, ['DE', 'GB', 'US']), language: null };
    const [series, prev, distinct] = await Promise.all([
      naiveSeries(world.db, dim, new Date(scope.from), new Date(scope.to), 'day'),
      naiveSeries(world.db, dim, new Date(scope.prev_from), new Date(scope.prev_to), 'day'),
      naiveDistinct(world.db, dim, new Date(scope.from), new Date(scope.to)),
    ]);
    for (const row of items.slice(0, 4)) {
      const id = row.resolved_id;
      const want = series.get(id)!;
      const total = want.imp.reduce((a, b) => a + b, 0);
      const before = prev.get(id)!.imp.reduce((a, b) => a + b, 0);
      expect(row.impressions_spark, row.key).toEqual(want.imp);
      expect(row.impressions).toBe(total);
      expect(row.publications_spark).toEqual(want.pubs);
      expect(row.publications_count).toBe(distinct.get(id)?.publications ?? 0);
      expect(row.publishers_count).toBe(distinct.get(id)?.publishers ?? 0);
      expect(row.avg_position).toBeCloseTo(want.ps.reduce((a, b) => a + b, 0) / total, 2);
      expect(row.delta_pct).toBe(before > 0 ? Math.round(((total - before) / before) * 1000) / 10 : null);
      expect(row.impressions_spark).toHaveLength(7);
      expect(row.resolved_type).toBe('person');
    }
    expect(items[3].resolved_id, 'a plain name resolves by normalized name').toBe(entityIds[3]);
    expect(items[4]).toMatchObject({
      key: 'Nobody Known',
      resolved_id: null,
      impressions: 0,
      publications_count: 0,
      avg_position: null,
      delta_pct: null,
      rank_delta: null,
      lived_hours: null,
      avg_lifespan_hours: null,
      related: [],
      last_seen: null,
      impressions_spark: [0, 0, 0, 0, 0, 0, 0],
    });
    const pageDistinct = await naiveDistinct(world.db, { ...dim, keys: entityIds.slice(0, 3) }, new Date(scope.from), new Date(scope.to));
    expect(summary.scope).toBe('page');
    expect(summary.impressions).toBe(items.reduce((a: number, r: any) => a + r.impressions, 0));
    expect(summary.publications_count).toBeLessThanOrEqual([...pageDistinct.values()].reduce((a, r) => a + r.publications, 0));
  });

  it.each(['category', 'publisher', 'trend'])('%s rows equal the oracle', async (kind) => {
    const reply = await metrics(kind, '?period=30d&country=US&lang=en');
    expect(reply.status, show(reply)).toBe(200);
    const { scope, items } = reply.body;
    expect(scope).toMatchObject({ country: 'US', markets: ['us'], lang: 'en' });
    const keys = items.map((r: any) => r.key);
    const series = await naiveSeries(
      world.db,
      { kind: kind as any, keys, keyScope: await listedScope(world.db, ['US']), language: 'en' },
      new Date(scope.from),
      new Date(scope.to),
      'day',
    );
    for (const row of items) expect(row.impressions_spark, `${kind} ${row.key}`).toEqual(series.get(row.key)!.imp);
    if (kind === 'trend') {
      expect(items[0]).toMatchObject({ state: 'hot', cabinet_url: `https://app.example.com/trend/${TRENDS[0]}` });
      expect(Object.keys(items[0].forecast)).toEqual([
        'pct_next24h',
        'pct_next7d',
        'pct_next30d',
        'predicted_total_reach',
        'predicted_end_at',
        'confidence',
      ]);
    }
  });

  it('hour grain over 24h has 24 buckets; limit/offset page the items', async () => {
    const hourly = await metrics('entity', '?period=24h&grain=hour');
    expect(hourly.body.items[0].impressions_spark).toHaveLength(24);
    expect(hourly.body.scope).toMatchObject({ from: '2026-11-09T11:00:00+00:00', grain: 'hour' });
    const page = await metrics('entity', '?limit=2&offset=1');
    expect(page.body.items.map((r: any) => r.key)).toEqual(entityIds.slice(1, 3));
    expect(page.body).toMatchObject({ total: 5, limit: 2, offset: 1 });
  });

  it('a custom window before the plan history is clamped and says so', async () => {
    const { key, projectId } = await world.tenant({ countries: ['US'], historyDays: 3 });
    await createList(world.db, { projectId, kind: 'publisher', name: 'p', items: [{ key: DOMAINS[0] }] });
    const [{ id }] = await queryRows<{ id: string }>(world.db, 'SELECT id::text FROM tracking_lists WHERE project_id = $1', [projectId]);
    const reply = await world.call(
      `/v1/tracking/lists/${id}/metrics?period=custom&date_from=2026-11-01T00:00:00Z&date_to=2026-11-09T00:00:00Z`,
      { key },
    );
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.scope).toMatchObject({
      from: '2026-11-07T10:30:00+00:00',
      to: '2026-11-09T00:00:00+00:00',
      history_days: 3,
      clamped: true,
    });
  });
});

describe('metrics errors', () => {
  it.each([
    ['?period=custom', ['query', 'date_from'], 'missing'],
    ['?period=custom&date_from=2026-11-01T00:00:00Z', ['query', 'date_to'], 'missing'],
    ['?period=90d', ['query', 'period'], 'enum'],
    ['?grain=week', ['query', 'grain'], 'enum'],
    ['?limit=201', ['query', 'limit'], 'less_than_equal'],
    ['?country=USA', ['query', 'country'], 'string_pattern_mismatch'],
  ])('%s -> 422', async (query, loc, type) => {
    const reply = await metrics('entity', query);
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail[0]).toMatchObject({ loc, type });
  });

  it('an explicit country outside the key is 403 naming it', async () => {
    const reply = await metrics('entity', '?country=FR');
    expect(reply.status, show(reply)).toBe(403);
    expect(reply.body.detail).toBe("Region 'FR' is not allowed for this API key. Allowed regions: US, GB, DE.");
  });

  it('403 market_not_entitled when the project has no markets', async () => {
    const bare = await world.tenant({ countries: [] });
    const list = await createList(world.db, { projectId: bare.projectId, kind: 'publisher', name: 'x', items: [{ key: DOMAINS[0] }] });
    const reply = await world.call(`/v1/tracking/lists/${list.id}/metrics`, { key: bare.key });
    expect(reply.status, show(reply)).toBe(403);
    expect(reply.body.detail.code).toBe('market_not_entitled');
  });

  it('403 category_not_in_plan for a category list outside the chosen categories', async () => {
    const grow = await world.tenant({ plan: 'grow', countries: ['US'], categories: ['/Sports'] });
    const list = await createList(world.db, {
      projectId: grow.projectId,
      kind: 'category',
      name: 'c',
      items: [{ key: '/Sports/Soccer' }, { key: '/Tech' }],
    });
    const reply = await world.call(`/v1/tracking/lists/${list.id}/metrics`, { key: grow.key });
    expect(reply.status, show(reply)).toBe(403);
    expect(reply.body.detail).toMatchObject({ code: 'category_not_in_plan', message: expect.stringContaining('/Tech') });
  });

  it('403 video_not_in_plan for a video publisher on a plan without video data', async () => {
    await seed(world, [{ type: 'publisher', domain: 'clips.example.tv', name: 'ClipTube', is_video: true }]);
    const grow = await world.tenant({ plan: 'grow', countries: ['US'] });
    const list = await createList(world.db, {
      projectId: grow.projectId,
      kind: 'publisher',
      name: 'v',
      items: [{ key: 'clips.example.tv' }, { key: DOMAINS[0] }],
    });
    const reply = await world.call(`/v1/tracking/lists/${list.id}/rollup`, { key: grow.key });
    expect(reply.status, show(reply)).toBe(403);
    expect(reply.body.detail).toMatchObject({ code: 'video_not_in_plan', platform: 'ClipTube' });
    const scale = await world.tenant({ plan: 'scale', countries: ['US'] });
    const allowed = await createList(world.db, {
      projectId: scale.projectId,
      kind: 'publisher',
      name: 'v',
      items: [{ key: 'clips.example.tv' }],
    });
    expect((await world.call(`/v1/tracking/lists/${allowed.id}/metrics`, { key: scale.key })).status).toBe(200);
  });

  it('404 for unknown and foreign lists alike; 401 without a key; 403 without a project', async () => {
    expect((await metrics('foreign')).body).toEqual({ detail: 'tracking list not found' });
    expect((await world.call('/v1/tracking/lists/00000000-0000-4000-8000-000000000000/metrics', { key: tenant.key })).status).toBe(404);
    expect((await world.call(`/v1/tracking/lists/${lists.entity}/metrics`)).status).toBe(401);
    const internal = await world.internalKey();
    expect((await metrics('entity', '', internal)).body.detail.code).toBe('project_key_required');
  });
});

describe('rollup', () => {
  it('entity list blocks over the whole list', async () => {
    const reply = await world.call(`/v1/tracking/lists/${lists.entity}/rollup?period=30d`, { key: tenant.key });
    expect(reply.status, show(reply)).toBe(200);
    expect(Object.keys(reply.body)).toEqual([
      'list_id',
      'kind',
      'scope',
      'item_count',
      'publishers',
      'trends',
      'related',
      'groups',
      'types',
      'data_as_of',
    ]);
    expect(reply.body.scope).not.toHaveProperty('grain');
    expect(reply.body.publishers.length).toBeGreaterThan(0);
    expect(reply.body.types).toEqual([expect.objectContaining({ name: 'person' })]);
    const publishers = await queryRows<{ domain: string; pubs: number }>(
      world.db,
      `SELECT a.domain, count(DISTINCT o.url_id)::int AS pubs FROM observations o JOIN articles a ON a.id = o.url_id
       JOIN article_entities ae ON ae.url_id = o.url_id WHERE ae.entity_id::text = ANY($1::text[]) AND o.impressions > 0
         AND o.hour >= $2 AND o.hour < date_trunc('hour', $3::timestamptz) + interval '1 hour' GROUP BY a.domain`,
      [entityIds, reply.body.scope.from, NOW],
    ); // the three ids and 'Grace Hopper' by name: all four
    for (const block of reply.body.publishers) expect(block.pubs, block.name).toBe(publishers.find((p) => p.domain === block.name)?.pubs);
  });

  it.each([
    ['category', ['publishers', 'trends', 'entities']],
    ['publisher', ['categories', 'trends', 'entities']],
    ['trend', ['publishers', 'entities', 'categories', 'top_articles']],
  ])('%s list blocks', async (kind, blocks) => {
    const reply = await world.call(`/v1/tracking/lists/${lists[kind]}/rollup?period=30d&country=US`, { key: tenant.key });
    expect(reply.status, show(reply)).toBe(200);
    expect(Object.keys(reply.body)).toEqual(['list_id', 'kind', 'scope', 'item_count', ...blocks, 'data_as_of']);
    expect(reply.body.scope).toMatchObject({ country: 'US', markets: ['us'] });
    for (const block of blocks) expect(reply.body[block].length, block).toBeGreaterThan(0);
    if (kind === 'trend') {
      expect(reply.body.top_articles[0]).toMatchObject({ cabinet_url: expect.stringMatching(/^https:\/\/app\.example\.com\/article\//) });
      const imps = reply.body.top_articles.map((a: any) => a.imps);
      expect(imps).toEqual([...imps].sort((a: number, b: number) => b - a));
    }
  });

  it('422 list_too_large over 500 items, echoing the limit', async () => {
    const reply = await world.call(`/v1/tracking/lists/${lists.large}/rollup`, { key: tenant.key });
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail).toMatchObject({ code: 'list_too_large', limit: 500, item_count: 501 });
  });
});

describe('queued aggregates', () => {
  it('503 computing -> one job for 20 identical cold requests -> consumer -> 200, quota spent once', async () => {
    const { key, projectId } = await world.tenant({ plan: 'grow', countries: ['US', 'GB'] });
    const list = await createList(world.db, { projectId, kind: 'publisher', name: 'slow', items: DOMAINS.map((k) => ({ key: k })) });
    const sent: AggregateJob[] = [];
    const queue = {
      send: async (body: AggregateJob) => void sent.push(body),
      sendBatch: async (b: { body: AggregateJob }[]) => void sent.push(...b.map((m) => m.body)),
    };
    const path = `/v1/tracking/lists/${list.id}/metrics?period=30d`;
    const call = () => world.call(path, { key, env: { AGGREGATE_INLINE_COST: '1' }, queue } as any);
    const cold = await Promise.all(Array.from({ length: 20 }, call));
    for (const reply of cold) {
      expect(reply.status, show(reply)).toBe(503);
      expect(reply.headers.get('retry-after')).toBe('15');
      expect(reply.body.detail.code).toBe('computing');
    }
    expect(sent).toHaveLength(1);

    const batch = createMessageBatch('discovery-jobs', [{ id: 'm1', timestamp: new Date(), attempts: 1, body: sent[0] }]);
    const ctx = createExecutionContext();
    await worker.queue(batch as any, { ...world.env } as any, ctx);
    expect(await getQueueResult(batch, ctx)).toMatchObject({ explicitAcks: ['m1'], retryMessages: [] });

    const warm = await call();
    expect(warm.status, show(warm)).toBe(200);
    expect(warm.headers.get('x-aggregate-cache'), 'only internal keys are told how the answer came about').toBeNull();
    expect(warm.body.items.map((r: any) => r.key)).toEqual(DOMAINS);
    const usage = await world.call('/v1/usage', { key });
    expect(usage.body.month.used, '20 answers of 503 and one 200 spend one request').toBe(1);

    // The cron warmer re-queues it once its cached copy is about to expire.
    const store = createStore(readConfig({ ...world.env }));
    const cacheKey = sent[0].cacheKey;
    await store.redis.expire(cacheKey, 30);
    sent.length = 0;
    const cron = createExecutionContext();
    await worker.scheduled(createScheduledController() as any, { ...world.env, JOBS_QUEUE: queue } as any, cron);
    await waitOnExecutionContext(cron);
    expect(sent.map((j) => j.cacheKey)).toEqual([cacheKey]);
  });

  it('a job failing for a reason a retry may fix is retried; one that no retry fixes (its list is gone: 404) is acknowledged', async () => {
    const job: AggregateJob = {
      type: 'aggregate',
      kind: 'tracking.metrics',
      cacheKey: `${world.env.REDIS_PREFIX}:gone-list`,
      request: {
        route: 'metrics',
        projectId: tenant.projectId,
        listId: '00000000-0000-4000-8000-000000000000',
        query: {},
        auth: {} as any,
      },
    };
    const down = createMessageBatch('discovery-jobs', [{ id: 'bad', timestamp: new Date(), attempts: 1, body: job }]);
    const ctx = createExecutionContext();
    await worker.queue(down as any, { ...world.env, NEON_HTTP_ENDPOINT: 'http://127.0.0.1:1/sql' } as any, ctx);
    expect(await getQueueResult(down, ctx)).toMatchObject({ explicitAcks: [], retryMessages: [{ msgId: 'bad' }] });
    const gone = createMessageBatch('discovery-jobs', [{ id: 'gone', timestamp: new Date(), attempts: 1, body: job }]);
    const ctx2 = createExecutionContext();
    await worker.queue(gone as any, { ...world.env } as any, ctx2);
    expect(await getQueueResult(gone, ctx2)).toMatchObject({ explicitAcks: ['gone'], retryMessages: [] });
  });

  it('plan changes reach cached keys after the cache is forgotten', async () => {
    await updateProject(world.db, other.projectId, { subscriptionStatus: 'canceled' });
    forgetCachedKeys();
    expect((await metrics('foreign', '', other.key)).status).toBe(402);
  });
});
