// GET /v1/trends/{trend_id}/rollup: exact totals and blocks over the hand-made world, what each key
// may see, errors, the queued path (503 computing -> consumer -> cached 200), and an oracle over
// random windows against plain SQL over the raw observations.
import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../functions/index';
import { TrendRollupSchema } from '../../functions/trends/rollup-schemas';
import type { AggregateJob } from '../../shared/aggregates/kind';
import { queryRows } from '../../shared/db/raw';
import { article, BUDGET, ELECTION, FINALS, UNKNOWN } from '../fixtures/trends';
import { trendsWorld } from '../helpers/trends-world';
import { show, type Tenant, type World } from '../helpers/world';

let world: World;
let internal: string;
let usOnly: Tenant;
let sportsPlan: Tenant;

beforeAll(async () => {
  ({ world, internal, usOnly, sportsPlan } = await trendsWorld('trends_rollup'));
}, 60_000);

const rollup = (id: string, query = '', key = internal) => world.call(`/v1/trends/${id}/rollup${query}`, { key });

describe('GET /v1/trends/{trend_id}/rollup (happy)', () => {
  it('7 days: totals, top articles with cabinet_url, publishers, countries', async () => {
    const reply = await rollup(ELECTION, '?period=7d');
    expect(reply.status, show(reply)).toBe(200);
    expect(TrendRollupSchema.safeParse(reply.body).success).toBe(true);
    expect(reply.body).toMatchObject({ trend_id: ELECTION, cabinet_url: `https://app.example.com/trend/${ELECTION}` });
    expect(reply.body.scope).toMatchObject({
      country: 'all',
      from: '2026-11-14T00:00:00+00:00',
      to: '2026-11-20T12:30:00+00:00',
      clamped: false,
    });
    expect(reply.body.totals).toEqual({
      publications: 4,
      impressions: 120,
      publishers: 4,
      new_articles: 4,
      prev_impressions: 0,
      delta_pct: null,
    });
    expect(reply.body.top_articles.map((a: any) => [a.id, a.impressions])).toEqual([
      [article(2), 40],
      [article(4), 40],
      [article(3), 30],
      [article(1), 10],
    ]);
    expect(reply.body.top_articles[0]).toEqual({
      id: article(2),
      url: 'https://news2.example.com/story/2',
      cabinet_url: `https://app.example.com/article/${article(2)}`,
      title: 'Story 2',
      domain: 'news2.example.com',
      publisher: 'News 2',
      first_seen_at: '2026-11-19T08:00:00+00:00',
      impressions: 40,
    });
    expect(reply.body.publishers[0]).toEqual({ domain: 'news2.example.com', name: 'News 2', pubs: 1, imps: 40 });
    expect(reply.body.countries).toEqual([
      { country: 'GB', pubs: 2, imps: 50 },
      { country: 'DE', pubs: 1, imps: 40 },
      { country: 'US', pubs: 2, imps: 30 },
    ]);
    expect(reply.body.entities).toEqual([]);
  });

  it('country, lang and custom windows; the previous window gives delta_pct', async () => {
    const gb = await rollup(ELECTION, '?period=7d&country=gb');
    expect(gb.body.totals).toMatchObject({ publications: 2, impressions: 50 });
    expect((await rollup(ELECTION, '?period=7d&lang=de')).body.totals).toMatchObject({ publications: 0, impressions: 0 });
    const custom = await rollup(ELECTION, '?period=custom&date_from=2026-11-17T00:00:00Z&date_to=2026-11-21T00:00:00Z');
    expect(custom.body.totals).toEqual({
      publications: 3,
      impressions: 80,
      publishers: 3,
      new_articles: 3,
      prev_impressions: 40,
      delta_pct: 100,
    });
  });

  it('restricted keys see their markets only; plans their categories only', async () => {
    const us = await rollup(ELECTION, '?period=30d', usOnly.key);
    expect(us.status, show(us)).toBe(200);
    expect(us.body.totals).toMatchObject({ publications: 2, impressions: 30, new_articles: 2 });
    expect(us.body.countries).toEqual([{ country: 'US', pubs: 2, imps: 30 }]);
    const sports = await rollup(ELECTION, '?period=30d', sportsPlan.key);
    expect(sports.body.top_articles.map((a: any) => a.id)).toEqual([article(3)]);
  });

  it('a trend without articles rolls up to zeros', async () => {
    const reply = await rollup(FINALS);
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.totals).toEqual({
      publications: 0,
      impressions: 0,
      publishers: 0,
      new_articles: 0,
      prev_impressions: 0,
      delta_pct: null,
    });
  });
});

describe('errors and security', () => {
  it('404 for unknown and invisible trends, identically', async () => {
    const unknown = await rollup(UNKNOWN);
    expect(unknown.status, show(unknown)).toBe(404);
    const hidden = await rollup(BUDGET, '', usOnly.key);
    expect(hidden.status, show(hidden)).toBe(404);
    expect(hidden.body.detail.replace(BUDGET, 'X')).toBe(unknown.body.detail.replace(UNKNOWN, 'X'));
  });

  it('403 for a country outside the key; 422 for bad windows; 401 without a key', async () => {
    const fr = await rollup(ELECTION, '?country=fr', usOnly.key);
    expect(fr.status, show(fr)).toBe(403);
    expect(fr.body.detail).toMatch(/Region 'FR' is not allowed/);
    const custom = await rollup(ELECTION, '?period=custom');
    expect(custom.status, show(custom)).toBe(422);
    expect(custom.body.detail[0].loc).toEqual(['query', 'date_from']);
    expect((await rollup(ELECTION, '?period=1y')).status).toBe(422);
    expect((await world.call(`/v1/trends/${ELECTION}/rollup`)).status).toBe(401);
  });
});

describe('queued roll-ups', () => {
  it('503 computing -> one job for identical cold requests -> consumer -> cached 200', async () => {
    const sent: AggregateJob[] = [];
    const queue = { send: async (body: AggregateJob) => void sent.push(body), sendBatch: async () => undefined };
    const call = () =>
      world.call(`/v1/trends/${ELECTION}/rollup?period=30d`, { key: internal, env: { AGGREGATE_INLINE_COST: '1' }, queue } as any);
    const cold = await Promise.all(Array.from({ length: 8 }, call));
    for (const reply of cold) {
      expect(reply.status, show(reply)).toBe(503);
      expect(reply.headers.get('retry-after')).toBe('15');
      expect(reply.body.detail.code).toBe('computing');
    }
    expect(sent.map((j) => j.kind)).toEqual(['trends.rollup']);
    const batch = createMessageBatch('discovery-jobs', [{ id: 'r1', timestamp: new Date(), attempts: 1, body: sent[0] }]);
    const ctx = createExecutionContext();
    await worker.queue(batch as any, { ...world.env } as any, ctx);
    expect(await getQueueResult(batch, ctx)).toMatchObject({ explicitAcks: ['r1'], retryMessages: [] });
    const warm = await call();
    expect(warm.status, show(warm)).toBe(200);
    expect(warm.headers.get('x-aggregate-cache')).toBe('hit');
    expect(warm.body.totals.publications).toBe(4);
  });
});

describe('queued roll-ups that no retry fixes (issue 19)', () => {
  it('a job for date_to=9999-12-31 (queued before windows were bounded) is acknowledged and stores a 422 the caller then gets, not computing forever', async () => {
    const sent: AggregateJob[] = [];
    const queue = { send: async (body: AggregateJob) => void sent.push(body), sendBatch: async () => undefined };
    const path = `/v1/trends/${ELECTION}/rollup?period=custom&date_from=2026-10-01T00:00:00Z&date_to=2026-10-02T00:00:00Z`;
    const call = () => world.call(path, { key: internal, env: { AGGREGATE_INLINE_COST: '1' }, queue } as any);
    expect((await call()).status).toBe(503);
    // The job as the old code queued it for the far-future window, under that request's cache key.
    const job = {
      ...sent[0],
      request: { ...(sent[0].request as any), query: { ...(sent[0].request as any).query, date_to: '9999-12-31T00:00:00.000Z' } },
    };
    const batch = createMessageBatch('discovery-jobs', [{ id: 'far', timestamp: new Date(), attempts: 1, body: job }]);
    const ctx = createExecutionContext();
    await worker.queue(batch as any, { ...world.env } as any, ctx);
    expect(await getQueueResult(batch, ctx), 'done, not retried into the dead-letter queue').toMatchObject({
      explicitAcks: ['far'],
      retryMessages: [],
    });
    const after = await call();
    expect(after.status, show(after)).toBe(422);
    expect(after.body.detail[0]).toMatchObject({ loc: ['query'], type: 'value_error' });
    expect(after.headers.get('x-aggregate-cache')).toBeNull();
  });

  it('a trend that left the scope before its job ran: the job stores the 404, the caller gets 404', async () => {
    const sent: AggregateJob[] = [];
    const queue = { send: async (body: AggregateJob) => void sent.push(body), sendBatch: async () => undefined };
    const path = `/v1/trends/${ELECTION}/rollup?period=custom&date_from=2026-10-03T00:00:00Z&date_to=2026-10-04T00:00:00Z`;
    const call = () => world.call(path, { key: internal, env: { AGGREGATE_INLINE_COST: '1' }, queue } as any);
    expect((await call()).status).toBe(503);
    const job = { ...sent[0], request: { ...(sent[0].request as any), trendId: UNKNOWN } };
    const batch = createMessageBatch('discovery-jobs', [{ id: 'gone', timestamp: new Date(), attempts: 1, body: job }]);
    const ctx = createExecutionContext();
    await worker.queue(batch as any, { ...world.env } as any, ctx);
    expect(await getQueueResult(batch, ctx)).toMatchObject({ explicitAcks: ['gone'], retryMessages: [] });
    const after = await call();
    expect(after.status, show(after)).toBe(404);
  });

  it('a job that fails for a reason a retry may fix (PostgreSQL down) is retried and stores nothing', async () => {
    const sent: AggregateJob[] = [];
    const queue = { send: async (body: AggregateJob) => void sent.push(body), sendBatch: async () => undefined };
    const path = `/v1/trends/${ELECTION}/rollup?period=custom&date_from=2026-10-05T00:00:00Z&date_to=2026-10-06T00:00:00Z`;
    const call = () => world.call(path, { key: internal, env: { AGGREGATE_INLINE_COST: '1' }, queue } as any);
    expect((await call()).status).toBe(503);
    const batch = createMessageBatch('discovery-jobs', [{ id: 'down', timestamp: new Date(), attempts: 1, body: sent[0] }]);
    const ctx = createExecutionContext();
    await worker.queue(batch as any, { ...world.env, NEON_HTTP_ENDPOINT: 'http://127.0.0.1:1/sql' } as any, ctx);
    expect(await getQueueResult(batch, ctx)).toMatchObject({ explicitAcks: [], retryMessages: [{ msgId: 'down' }] });
    const after = await call();
    expect(after.status, show(after)).toBe(503);
    expect(after.body.detail.code).toBe('computing');
  });
});

describe('oracle: roll-up numbers equal plain SQL over raw observations', () => {
  it('random windows, markets and keys', async () => {
    const base = Date.parse('2026-11-21T00:00:00Z');
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          startHours: fc.integer({ min: 1, max: 220 * 24 }),
          lengthHours: fc.integer({ min: 1, max: 40 * 24 }),
          country: fc.constantFrom('all', 'US', 'GB', 'DE'),
        }),
        async (q) => {
          const from = new Date(base - q.startHours * 3_600_000);
          // Windows end by base (NOW + 11.5 h): later than now plus a day is 422 (docs/SECURITY.md "Windows bounded to now").
          const to = new Date(Math.min(from.getTime() + q.lengthHours * 3_600_000, base));
          const reply = await rollup(
            ELECTION,
            `?period=custom&date_from=${from.toISOString()}&date_to=${to.toISOString()}&country=${q.country}`,
          );
          expect(reply.status, show(reply)).toBe(200);
          const markets = q.country === 'all' ? ['US', 'GB', 'DE', 'FR'] : [q.country];
          const raw = await queryRows<{ url_id: string; country: string; domain: string; impressions: number }>(
            world.db,
            `SELECT o.url_id::text, o.country, a.domain, o.impressions FROM observations o JOIN articles a ON a.id = o.url_id
             WHERE o.url_id IN (SELECT url_id FROM trend_articles WHERE trend_id = $1) AND o.hour >= $2 AND o.hour < $3`,
            [ELECTION, from.toISOString(), to.toISOString()],
          );
          const hits = raw.filter((r) => markets.includes(r.country) && r.impressions > 0);
          const perUrl = new Map<string, number>();
          for (const h of hits) perUrl.set(h.url_id, (perUrl.get(h.url_id) ?? 0) + h.impressions);
          expect(reply.body.totals.publications).toBe(perUrl.size);
          expect(reply.body.totals.impressions).toBe([...perUrl.values()].reduce((a, b) => a + b, 0));
          expect(reply.body.totals.publishers).toBe(new Set(hits.map((h) => h.domain)).size);
          expect(reply.body.top_articles.map((a: any) => a.impressions)).toEqual([...perUrl.values()].sort((a, b) => b - a).slice(0, 10));
          const perCountry = new Map<string, number>();
          for (const h of hits) perCountry.set(h.country, (perCountry.get(h.country) ?? 0) + h.impressions);
          expect(Object.fromEntries(reply.body.countries.map((c: any) => [c.country, c.imps]))).toEqual(Object.fromEntries(perCountry));
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
