// Defects once found in the API's numbers and fields, one test each (numbered as found), on data loaded
// through the product's ingest path (the oracle data set), numbers against naive references where they are numbers.
import { beforeAll, describe, expect, it } from 'vitest';
import { forecastTrend, MAX_RATE, PHI } from '../../functions/tracking/forecast';
import { scanMentionList } from '../../functions/jobs/scan';
import { createList } from '../../shared/admin/lists';
import { parseIsoUtc } from '../../shared/time/dates';
import { queryRows } from '../../shared/db/raw';
import { LIST_CAPS } from '../../shared/scope/plans';
import { dataset, TRENDS } from '../fixtures/oracle';
import { seed } from '../helpers/seed';
import { createWorld, show, type Tenant, type World } from '../helpers/world';

const NOW = '2026-11-10T10:30:00.000Z';
const NOW_MS = Date.parse(NOW);
const DAY = 86_400_000;
const URL_ID = '0a0a0a0a-0000-4000-8000-000000000002';
let world: World;
let tenant: Tenant;
let starter: Tenant;
let empty: Tenant;
const lists: Record<string, string> = {};
let entityIds: { id: string; name: string }[];

beforeAll(async () => {
  world = await createWorld('data_defects');
  world.setNow(NOW);
  for (const batch of dataset()) await seed(world, batch);
  tenant = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
  starter = await world.tenant({ plan: 'start', countries: ['US', 'GB', 'DE'] });
  empty = await world.tenant({ plan: 'scale', countries: [] });
  entityIds = await queryRows<{ id: string; name: string }>(world.db, 'SELECT id::text, name FROM entities ORDER BY normalized_name');
  const now = new Date(NOW);
  const make = async (name: string, input: Parameters<typeof createList>[1]) => (lists[name] = (await createList(world.db, input, now)).id);
  await make('entity', {
    projectId: tenant.projectId,
    kind: 'entity',
    name: 'People',
    items: [
      { key: entityIds[0].id, addedAt: new Date(NOW_MS - 3_600_000) },
      { key: entityIds[1].name, addedAt: new Date(NOW_MS - 7_200_000) },
    ],
  });
  await make('trend', { projectId: tenant.projectId, kind: 'trend', name: 'Stories', items: TRENDS.map((key) => ({ key })) });
  await make('mention', {
    projectId: tenant.projectId,
    kind: 'mention',
    name: 'Stories',
    countries: [],
    langs: [],
    searchScope: 'title',
    createdAt: now,
    terms: [{ keyword: 'story', matchType: 'broad' }],
  });
  const client = await world.pool().connect();
  try {
    await scanMentionList(client, lists.mention, now);
  } finally {
    client.release();
  }
}, 120_000);

const get = (path: string, key = tenant.key) => world.call(path, { key });
const metrics = (list: string, query = '', key = tenant.key) => get(`/v1/tracking/lists/${lists[list]}/metrics${query}`, key);

describe('1. forecasts: finite, bounded by the data, a meaningful confidence', () => {
  const today = new Date(NOW);
  const bound = (daily: number[]) => Math.max(...daily) * Math.exp((MAX_RATE * PHI) / (1 - PHI));
  const sane = (daily: number[]) => {
    const f = forecastTrend(
      daily,
      daily.reduce((a, b) => a + b, 0),
      today,
    );
    for (const v of [f.pct_next24h, f.pct_next7d, f.pct_next30d, f.predicted_total_reach, f.confidence])
      expect(Number.isFinite(v)).toBe(true);
    expect(Number.isSafeInteger(f.predicted_total_reach)).toBe(true);
    // Each of the 30 predicted days is at most 16x the 14-day peak.
    expect(f.predicted_total_reach).toBeLessThanOrEqual(daily.reduce((a, b) => a + b, 0) + 30 * bound(daily) + 1);
    expect(f.confidence).toBeGreaterThanOrEqual(0);
    expect(f.confidence).toBeLessThanOrEqual(1);
    expect(Date.parse(f.predicted_end_at)).toBeGreaterThan(today.getTime());
    expect(Date.parse(f.predicted_end_at)).toBeLessThanOrEqual(today.getTime() + 365 * DAY);
    return f;
  };

  it('steep and degenerate series stay finite and bounded', () => {
    // Was 5151085255920052 % and 1.68e19 (beyond int64); steeper gave Infinity.
    sane(Array.from({ length: 14 }, (_, i) => 2 ** (3 * i)));
    sane([...Array(13).fill(0), 1e12]);
    sane([1e12, ...Array(13).fill(0)]);
    sane(Array.from({ length: 14 }, (_, i) => 10 ** i));
    const zero = sane(Array(14).fill(0));
    expect(zero).toMatchObject({ pct_next24h: 0, pct_next7d: 0, pct_next30d: 0, predicted_total_reach: 0, confidence: 0 });
  });

  it('confidence: an exact fit over 14 active days is 1; noise and short history lower it', () => {
    expect(sane(Array(14).fill(500)).confidence).toBe(1);
    expect(sane(Array(14).fill(500)).pct_next30d).toBe(0);
    const noisy = sane(Array.from({ length: 14 }, (_, i) => (i % 2 ? 50 : 5_000))).confidence;
    const short = sane([...Array(10).fill(0), 500, 500, 500, 500]).confidence;
    expect(noisy).toBeLessThan(0.2);
    expect(short).toBeLessThan(0.5);
    const growing = sane(Array.from({ length: 14 }, (_, i) => 100 * 1.1 ** i));
    expect(growing.confidence).toBeGreaterThan(0.99);
    expect(growing.pct_next24h).toBeGreaterThan(0);
    const decaying = sane(Array.from({ length: 14 }, (_, i) => 10_000 * 0.7 ** i));
    expect(decaying.pct_next7d).toBeLessThan(0);
    expect(Date.parse(decaying.predicted_end_at)).toBeLessThan(today.getTime() + 30 * DAY);
  });

  it("trend rows forecast from the trend's daily impressions, as a naive query gives them", async () => {
    const reply = await metrics('trend');
    expect(reply.status, show(reply)).toBe(200);
    const dayStart = Math.floor(NOW_MS / DAY) * DAY;
    for (const row of reply.body.items) {
      const rows = await queryRows<{ day: number; imps: number }>(
        world.db,
        `SELECT ((extract(epoch FROM o.hour)::bigint * 1000 - $2::bigint) / ${DAY})::int AS day, sum(o.impressions)::float8 AS imps
         FROM observations o WHERE o.url_id IN (SELECT url_id FROM trend_articles WHERE trend_id = $1::uuid)
           AND o.country = ANY(ARRAY['US', 'GB', 'DE']) AND o.hour >= to_timestamp($2::bigint / 1000.0) AND o.hour < to_timestamp($3::bigint / 1000.0)
         GROUP BY 1`,
        [row.key, dayStart - 14 * DAY, dayStart],
      );
      const daily = Array.from({ length: 14 }, (_, i) => rows.find((r) => r.day === i)?.imps ?? 0);
      expect(daily.some((v) => v > 0)).toBe(true);
      expect(row.forecast).toEqual(
        forecastTrend(
          daily,
          daily.reduce((a, b) => a + b, 0),
          new Date(NOW),
        ),
      );
    }
  });
});

describe('3. cabinet_url on every publication', () => {
  const link = (id: string) => `https://app.example.com/article/${id}`;

  it("feed, live and per-URL items; the trending entry's top_article", async () => {
    for (const path of ['/v2/feed?limit=20', '/v2/live?since_minutes=1440&limit=20']) {
      const reply = await get(path);
      expect(reply.status, show(reply)).toBe(200);
      expect(reply.body.items.length, path).toBeGreaterThan(0);
      for (const item of reply.body.items) expect(item.cabinet_url).toBe(link(item.url_id));
    }
    const profiles = await get(`/v2/feed/${URL_ID}`);
    expect(profiles.status, show(profiles)).toBe(200);
    for (const item of profiles.body) expect(item.cabinet_url).toBe(link(URL_ID));
    const trending = await get('/v1/entities/trending?region=US&period=7d');
    expect(trending.status, show(trending)).toBe(200);
    expect(trending.body.trending_entities.length).toBeGreaterThan(0);
    for (const e of trending.body.trending_entities) expect(e.top_article.cabinet_url).toBe(link(e.top_article.url_id));
  });
});

describe('4. last_seen never after now', () => {
  it('feed items: at most now (the data runs past it), lifespan counts to it', async () => {
    const reply = await get('/v2/feed?sort_by=last_seen&limit=50');
    expect(reply.status, show(reply)).toBe(200);
    let atNow = 0;
    // The oracle data runs past NOW; a profile whose first hour is after NOW would not exist yet.
    for (const item of reply.body.items.filter((i: any) => Date.parse(i.first_seen) <= NOW_MS)) {
      const last = Date.parse(item.last_seen);
      expect(last).toBeLessThanOrEqual(NOW_MS);
      if (last === Math.floor(NOW_MS / 60_000) * 60_000) atNow++;
      const [h, m, s] = item.lifespan.split(':').map(Number);
      expect((h * 3600 + m * 60 + s) * 1000).toBe(last - Date.parse(item.first_seen));
    }
    // The running hour (10:00-11:00) has observations: their last_seen is now, not 11:00.
    expect(atNow).toBeGreaterThan(0);
  });

  it('metrics rows: at most the window end (now)', async () => {
    const reply = await metrics('entity', '?period=24h&grain=hour');
    expect(reply.status, show(reply)).toBe(200);
    const seen = reply.body.items.map((r: any) => r.last_seen).filter(Boolean);
    expect(seen.length).toBeGreaterThan(0);
    for (const s of seen) expect(Date.parse(s)).toBeLessThanOrEqual(NOW_MS);
  });
});

describe('5. /v2/feed reports history clamping', () => {
  it('history_clamped when date_from (or the period) is before the plan history', async () => {
    const early = await get('/v2/feed?date_from=2015-01-01', starter.key);
    expect(early.status, show(early)).toBe(200);
    expect(early.body.history_clamped).toBe(true);
    const recent = await get('/v2/feed?date_from=2026-11-05', starter.key);
    expect(recent.body.history_clamped).toBe(false);
    expect((await get('/v2/feed?period=30d', starter.key)).body.history_clamped).toBe(false); // Start keeps exactly 30 days
    expect((await get('/v2/feed?period=7d', starter.key)).body.history_clamped).toBe(false);
    expect((await get('/v2/feed', starter.key)).body.history_clamped).toBe(false);
  });
});

describe('6. a window wholly before the plan history', () => {
  it('is the empty window at the history start: from = to, an empty previous window, zero counts', async () => {
    const old = await metrics('entity', '?period=custom&date_from=2020-01-01&date_to=2020-02-01');
    expect(old.status, show(old)).toBe(200);
    const start = new Date(NOW_MS - 365 * DAY).toISOString().replace('.000Z', '+00:00');
    expect(old.body.scope).toMatchObject({ from: start, to: start, prev_from: start, prev_to: start, clamped: true });
    for (const row of old.body.items)
      expect(row).toMatchObject({ impressions: 0, publications_count: 0, impressions_spark: [], last_seen: null });
    const rollup = await get(`/v1/tracking/lists/${lists.entity}/rollup?period=custom&date_from=2020-01-01&date_to=2020-02-01`);
    expect(rollup.status, show(rollup)).toBe(200);
    expect(rollup.body.scope).toMatchObject({ from: start, to: start, clamped: true });
    expect(rollup.body.publishers).toEqual([]);
  });
});

describe('7. usage caps for an internal key', () => {
  it("come from the named project's plan", async () => {
    const internal = await world.internalKey();
    const reply = await get(`/v1/tracking/lists?project_id=${tenant.projectId}`, internal);
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.usage.entity).toEqual({ used: 2, limit: LIST_CAPS.scale.entity });
    expect(reply.body.usage.category).toEqual({ used: 0, limit: null }); // Scale does not cap categories
    expect(reply.body.usage.mention).toEqual({ used: 1, limit: LIST_CAPS.scale.mention });
    const own = await get('/v1/tracking/lists');
    expect(own.body.usage).toEqual(reply.body.usage);
  });
});

describe('8. entity-list items keyed by id show the entity name', () => {
  it('list detail and metrics rows, both key forms', async () => {
    const detail = await get(`/v1/tracking/lists/${lists.entity}`);
    expect(detail.status, show(detail)).toBe(200);
    expect(detail.body.items.map((i: any) => [i.key, i.name, i.type])).toEqual([
      [entityIds[0].id, entityIds[0].name, 'person'],
      [entityIds[1].name, entityIds[1].name, 'person'],
    ]);
    const rows = (await metrics('entity')).body.items;
    expect(rows.map((r: any) => [r.key, r.name, r.resolved_id])).toEqual([
      [entityIds[0].id, entityIds[0].name, entityIds[0].id],
      [entityIds[1].name, entityIds[1].name, entityIds[1].id],
    ]);
  });
});

describe('9. ISO 8601 dates without a time or an offset read as UTC', () => {
  it('the shared parser', () => {
    expect(parseIsoUtc('2026-11-01')?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseIsoUtc('2026-11-01T08:30')?.toISOString()).toBe('2026-11-01T08:30:00.000Z');
    expect(parseIsoUtc('2026-11-01T08:30:00+02:00')?.toISOString()).toBe('2026-11-01T06:30:00.000Z');
    expect(parseIsoUtc('2026-11-01T08:30:00 02:00')?.toISOString()).toBe('2026-11-01T06:30:00.000Z');
    expect(parseIsoUtc('2026-11-01T08:30:00.5Z')?.toISOString()).toBe('2026-11-01T08:30:00.500Z');
    for (const bad of ['2026-02-30', '2026-13-01', '2026-11-01T24:00', 'yesterday', '2026-11-1']) expect(parseIsoUtc(bad), bad).toBeNull();
  });

  it('every date parameter takes them: metrics, roll-up, matches, feed, articles', async () => {
    for (const [from, to] of [
      ['2026-11-03', '2026-11-05'],
      ['2026-11-03T00:00:00', '2026-11-05T00:00:00'],
      ['2026-11-03T00:00:00Z', '2026-11-05T00:00:00Z'],
    ]) {
      const m = await metrics('entity', `?period=custom&date_from=${from}&date_to=${to}`);
      expect(m.status, show(m)).toBe(200);
      expect(m.body.scope).toMatchObject({ from: '2026-11-03T00:00:00+00:00', to: '2026-11-05T00:00:00+00:00' });
      const matches = await get(`/v1/tracking/lists/${lists.mention}/matches?date_from=${from}&date_to=${to}`);
      expect(matches.status, show(matches)).toBe(200);
      expect(matches.body.scope).toMatchObject({ from: '2026-11-03T00:00:00+00:00', to: '2026-11-05T00:00:00+00:00' });
      for (const path of [
        `/v2/feed?period=custom&date_from=${from}&date_to=${to}`,
        `/v1/articles?date_from=${from}&date_to=${to}`,
        `/v1/tracking/lists/${lists.entity}/rollup?period=custom&date_from=${from}&date_to=${to}`,
      ]) {
        const reply = await get(path);
        expect(reply.status, `${path}: ${show(reply)}`).toBe(200);
      }
    }
    const same = (await get('/v2/feed?period=custom&date_from=2026-11-03&date_to=2026-11-05')).body;
    expect((await get('/v2/feed?period=custom&date_from=2026-11-03T00:00:00%2B00:00&date_to=2026-11-05T00:00:00Z')).body.items).toEqual(
      same.items,
    );
    const bad = await get('/v2/feed?date_from=2026-02-30');
    expect(bad.status, show(bad)).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['query', 'date_from'] });
  });
});

describe('10. one market_not_entitled rule', () => {
  it('every market-scoped route answers 403 market_not_entitled for a key without markets', async () => {
    const scoped = [
      '/v2/feed',
      '/v2/live',
      `/v2/feed/${URL_ID}`,
      '/v1/trends',
      `/v1/trends/${TRENDS[0]}`,
      '/v1/themes',
      '/v1/entities',
      '/v1/entities/trending?region=US',
      '/v1/geo/regions',
      '/v2/geo/regions/US',
      '/v1/articles',
      '/v2/feed?country=US',
    ];
    for (const path of scoped) {
      const reply = await get(path, empty.key);
      expect(reply.status, `${path}: ${show(reply)}`).toBe(403);
      expect(reply.body.detail, path).toMatchObject({ code: 'market_not_entitled' });
    }
    // Project data, usage and the language reference are not market-scoped.
    for (const path of ['/v1/tracking/lists', '/v1/geo/languages', '/v1/usage']) {
      const reply = await get(path, empty.key);
      expect(reply.status, `${path}: ${show(reply)}`).toBe(200);
    }
  });
});

describe('11. /matches with date_to before date_from', () => {
  it('422 like every other window route', async () => {
    const reply = await get(`/v1/tracking/lists/${lists.mention}/matches?date_from=2026-11-05&date_to=2026-11-03`);
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail[0]).toMatchObject({ loc: ['query', 'date_to'], msg: 'date_to must be after date_from' });
  });
});

describe('12. mention roll-up blocks ranked by urls, ties by name', () => {
  it('in the order the block shows, with counts from a naive query', async () => {
    const reply = await get(`/v1/tracking/lists/${lists.mention}/rollup?period=30d`);
    expect(reply.status, show(reply)).toBe(200);
    for (const block of ['publishers', 'entities', 'categories']) {
      const rows: { name: string; urls: number }[] = reply.body[block];
      expect(rows.length, block).toBeGreaterThan(1);
      const sorted = [...rows].sort((a, b) => b.urls - a.urls || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      expect(rows, block).toEqual(sorted);
    }
    // Publishers: every matched story with impressions in the window, per domain.
    const naive = await queryRows<{ name: string; urls: number }>(
      world.db,
      `SELECT a.domain AS name, count(DISTINCT a.id)::int AS urls FROM articles a
       WHERE a.title ILIKE '%story%' AND EXISTS (SELECT 1 FROM observations o WHERE o.url_id = a.id AND o.impressions > 0
         AND o.country = ANY(ARRAY['US', 'GB', 'DE']) AND o.hour >= $1::timestamptz AND o.hour < $2::timestamptz)
       GROUP BY a.domain ORDER BY urls DESC, name`,
      [reply.body.scope.from, new Date(Math.ceil(NOW_MS / 3_600_000) * 3_600_000).toISOString()],
    );
    expect(reply.body.publishers).toEqual(naive);
  });
});

describe('13. 401 wording', () => {
  it('an invalid key: the header or bearer key is missing or invalid', async () => {
    for (const options of [{ key: 'dk_live_nope' }, { bearer: 'dk_live_nope' }]) {
      const reply = await world.call('/v1/trends', options);
      expect(reply.status).toBe(401);
      expect(reply.body.detail).toMatch(/X-API-Key header or Authorization: Bearer key is missing or invalid/);
    }
  });
});

describe('14. nullability', () => {
  it('trend semantic_type is never null (unclassified when untyped)', async () => {
    const reply = await get('/v1/trends?min_articles=0');
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.trends.length).toBeGreaterThan(0);
    for (const t of reply.body.trends) expect(t.semantic_type).toBe('unclassified');
    const feed = await get('/v2/feed?limit=200');
    const trends = feed.body.items.map((i: any) => i.trend).filter(Boolean);
    expect(trends.length).toBeGreaterThan(0);
    for (const t of trends) expect(t.semantic_type).toBe('unclassified');
  });
});
