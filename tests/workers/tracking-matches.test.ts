// Mention lists: the scan (index candidates, precise match types) and GET .../matches;
// term metrics from the roll-ups the scan links.
import { beforeAll, describe, expect, it } from 'vitest';
import { scanMentionList } from '../../functions/jobs/scan';
import { createList } from '../../shared/admin/lists';
import { queryRows } from '../../shared/db/raw';
import { seed } from '../helpers/seed';
import { createWorld, show, type Tenant, type World } from '../helpers/world';

const NOW = '2026-11-20T12:00:00.000Z';
const hoursAgo = (h: number) => new Date(Date.parse('2026-11-20T12:00:00Z') - h * 3_600_000).toISOString();
const id = (n: number) => `5e5e5e5e-0000-4000-8000-00000000000${n}`;

let world: World;
let tenant: Tenant;
let mentionList: string;
let entityList: string;

function article(n: number, title: string, body: string, seenHoursAgo: number, country = 'US') {
  return [
    {
      type: 'article',
      id: id(n),
      url: `https://news${n}.example.com/a`,
      domain: `news${n}.example.com`,
      publisher: `News ${n}`,
      favicon_url: '',
      title,
      summary: '',
      body,
      content_language: 'en',
      date_published: hoursAgo(seenHoursAgo),
      date_modified: hoursAgo(seenHoursAgo),
      meta: { meta_title: title, meta_description: '', headline: title, section: '' },
      enrichment: { actors: [], topic: [], format_group: 'article', format_type: 'news', entities: {} },
      rss_feeds: null,
      images: [],
      markdown_content: null,
      first_seen_at: hoursAgo(seenHoursAgo),
      refreshed_at: hoursAgo(seenHoursAgo),
      categories: [{ name: '/Tech', confidence: 0.9 }],
      entities: [],
    },
    ...[0, 1, 2].map((h) => ({
      type: 'observation',
      url_id: id(n),
      country,
      language: 'en',
      hour: hoursAgo(seenHoursAgo - h),
      impressions: 10 * n + h,
      position: 2,
    })),
  ];
}

const TERMS = [
  { keyword: 'heat pump', matchType: 'broad' },
  { keyword: 'heat pump', matchType: 'phrase' },
  { keyword: 'Heat pump', matchType: 'exact' },
  { keyword: 'solar', matchType: 'broad' },
] as const;

/** An 'Energy' mention list of the project, scanned at NOW. */
async function scannedList(projectId: string): Promise<string> {
  const list = (
    await createList(
      world.db,
      {
        projectId,
        kind: 'mention',
        name: 'Energy',
        countries: ['US', 'GB'],
        langs: ['en'],
        searchScope: 'both',
        createdAt: new Date(NOW),
        terms: [...TERMS],
      },
      new Date(NOW),
    )
  ).id;
  const client = await world.pool().connect();
  try {
    await scanMentionList(client, list, new Date(NOW));
  } finally {
    client.release();
  }
  return list;
}

beforeAll(async () => {
  world = await createWorld('tracking_matches');
  world.setNow(NOW);
  await seed(world, [
    {
      type: 'country',
      alpha_2: 'US',
      alpha_3: 'USA',
      name: 'United States',
      region: 'Americas',
      sub_region: 'Northern America',
      languages: ['en'],
    },
    { type: 'country', alpha_2: 'DE', alpha_3: 'DEU', name: 'Germany', region: 'Europe', sub_region: 'Western Europe', languages: ['de'] },
    ...article(1, 'Heat pump prices fall in Zürich', 'Installers report demand.', 10),
    ...article(2, 'New HEAT PUMPS for homes', 'Pumps of all kinds.', 20),
    ...article(3, 'Pump the heat: a summer guide', 'Nothing else.', 30),
    ...article(4, 'Solar panels on every roof', 'A heat pump and solar combo saves money.', 40),
    ...article(5, 'Heat pump news from Berlin', 'Deutsch.', 5, 'DE'),
  ]);
  tenant = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
  mentionList = await scannedList(tenant.projectId);
  entityList = (await createList(world.db, { projectId: tenant.projectId, kind: 'entity', name: 'E', items: [{ key: 'x' }] })).id;
});

const matches = (query = '', key = tenant.key) => world.call(`/v1/tracking/lists/${mentionList}/matches${query}`, { key });
const hitsOf = (body: any, n: number) =>
  (body.hits[id(n)]?.mentions ?? []).map((m: any) => `${m.raw_text}|${m.match_type}|${m.field}|${m.matched_text}`).sort();

describe('scan and match types', () => {
  it('finds exactly what each match type means', async () => {
    const reply = await matches();
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.publications.map((p: any) => p.id)).toEqual([id(1), id(3), id(4)]);
    expect(hitsOf(reply.body, 1)).toEqual([
      'Heat pump|exact|title|Heat pump',
      'heat pump|broad|title|Heat',
      'heat pump|phrase|title|Heat pump',
    ]);
    expect(hitsOf(reply.body, 3), 'any order is broad only; the earliest word is reported').toEqual(['heat pump|broad|title|Pump']);
    expect(hitsOf(reply.body, 4), 'lower case in the body is not exact').toEqual([
      'heat pump|broad|body|heat',
      'heat pump|phrase|body|heat pump',
      'solar|broad|body|solar',
      'solar|broad|title|Solar',
    ]);
    expect(reply.body.hits[id(2)], '"pumps" is not the word "pump"').toBeUndefined();
    expect(reply.body.summary).toEqual({ matches: 8, publications: 3, mentions: { 'Heat pump': 1, 'heat pump': 5, solar: 2 } });
  });

  it('shapes publications with cabinet_url, upper-case market and snippets', async () => {
    const reply = await matches();
    expect(reply.body.publications[0]).toEqual({
      id: id(1),
      url: 'https://news1.example.com/a',
      cabinet_url: `https://app.example.com/article/${id(1)}`,
      title: 'Heat pump prices fall in Zürich',
      publisher: 'News 1',
      domain: 'news1.example.com',
      country: 'US',
      lang: 'EN',
      first_seen_at: '2026-11-20T02:00:00+00:00',
      article_first_seen_at: '2026-11-20T02:00:00+00:00',
      snippet: expect.stringContaining('Heat pump'),
    });
    expect(reply.body.scope, "the key's markets that the list watches").toMatchObject({
      country: 'all',
      markets: ['gb', 'us'],
      lang: 'all',
      history_days: 365,
      clamped: false,
    });
  });

  it('filters by mention, match_types, scope, q and limit', async () => {
    expect((await matches('?mention=solar')).body.publications.map((p: any) => p.id)).toEqual([id(4)]);
    expect((await matches('?match_types=exact')).body.publications.map((p: any) => p.id)).toEqual([id(1)]);
    expect((await matches('?match_types=phrase,exact&mention=heat%20pump&mention=Heat%20pump')).body.summary.matches).toBe(3);
    expect((await matches('?scope=body')).body.publications.map((p: any) => p.id)).toEqual([id(4)]);
    expect((await matches('?scope=both')).body.publications.map((p: any) => p.id)).toEqual([id(4)]);
    expect((await matches('?q=zurich')).body.publications).toHaveLength(0);
    expect((await matches('?q=Z%C3%BCrich')).body.publications.map((p: any) => p.id)).toEqual([id(1)]);
    const one = await matches('?limit=1');
    expect(one.body.publications.map((p: any) => p.id)).toEqual([id(1)]);
    expect(Object.keys(one.body.hits)).toEqual([id(1)]);
  });

  it('a country or language the list does not watch is an empty payload', async () => {
    for (const query of ['?country=DE', '?country=GB', '?lang=de']) {
      const reply = await matches(query);
      expect(reply.status, show(reply)).toBe(200);
      expect(reply.body).toMatchObject({ publications: [], hits: {}, summary: { matches: 0, publications: 0, mentions: {} } });
    }
  });

  it('date_from filters on first seen and is clamped to the plan history', async () => {
    expect((await matches(`?date_from=${encodeURIComponent(hoursAgo(25))}`)).body.publications.map((p: any) => p.id)).toEqual([id(1)]);
    const short = await world.tenant({ countries: ['US'], historyDays: 1 });
    const list = await createList(world.db, {
      projectId: short.projectId,
      kind: 'mention',
      name: 'm',
      countries: ['US'],
      terms: [{ keyword: 'solar', matchType: 'broad' }],
    });
    const reply = await world.call(`/v1/tracking/lists/${list.id}/matches?date_from=2026-01-01T00:00:00Z`, { key: short.key });
    expect(reply.body.scope).toMatchObject({ from: '2026-11-19T12:00:00+00:00', clamped: true, history_days: 1 });
  });

  it('lists index, detail and term metrics reflect the scan', async () => {
    const index = await world.call('/v1/tracking/lists?kind=mention', { key: tenant.key });
    expect(index.body.lists[0]).toMatchObject({
      matches_count: 3,
      new_publications_24h: 1,
      scan_status: 'succeeded',
      last_scanned_at: '2026-11-20T12:00:00+00:00',
    });
    const detail = await world.call(`/v1/tracking/lists/${mentionList}`, { key: tenant.key });
    expect(detail.body.items.map((t: any) => t.matches_count)).toEqual([3, 2, 1, 1]);
    const metrics = await world.call(`/v1/tracking/lists/${mentionList}/metrics?period=7d`, { key: tenant.key });
    expect(metrics.status, show(metrics)).toBe(200);
    const broad = metrics.body.items.find((r: any) => r.key === 'heat pump|broad');
    const [expected] = await queryRows<{ s: number }>(
      world.db,
      `SELECT sum(impressions)::float8 AS s FROM observations WHERE url_id = ANY($1::uuid[]) AND country = 'US'`,
      [[id(1), id(3), id(4)]],
    );
    expect(broad).toMatchObject({ match_type: 'broad', name: 'heat pump', publications_count: 3, impressions: expected.s });
    expect(metrics.body.summary).toMatchObject({ scope: 'page', publications_count: 3 });
    expect(metrics.body.summary.timeseries).toHaveLength(7);
  });
});

describe('mention roll-up', () => {
  it('counts matched publications per publisher, entity and category', async () => {
    const reply = await world.call(`/v1/tracking/lists/${mentionList}/rollup?period=7d`, { key: tenant.key });
    expect(reply.status, show(reply)).toBe(200);
    expect(Object.keys(reply.body)).toEqual(['list_id', 'kind', 'scope', 'publishers', 'entities', 'categories', 'data_as_of']);
    expect(reply.body.publishers.map((p: any) => p.name).sort()).toEqual(['News 1', 'News 3', 'News 4']);
    expect(reply.body.categories).toEqual([{ name: '/Tech', urls: 3 }]);
  });
});

describe('plan categories', () => {
  it('a category-limited plan sees only the publications under its chosen top levels', async () => {
    for (const [categories, expected] of [
      [['/Sports'], []],
      [
        ['/Sports', '/Tech'],
        [id(1), id(3), id(4)],
      ],
    ] as const) {
      const limited = await world.tenant({ plan: 'grow', countries: ['US', 'GB', 'DE'], categories: [...categories] });
      const list = await scannedList(limited.projectId);
      const reply = await world.call(`/v1/tracking/lists/${list}/matches`, { key: limited.key });
      expect(reply.status, show(reply)).toBe(200);
      expect(
        reply.body.publications.map((p: any) => p.id),
        categories.join(),
      ).toEqual(expected);
      expect(reply.body.summary.publications).toBe(expected.length);
      expect(Object.keys(reply.body.hits).sort()).toEqual([...expected].sort());
    }
  });
});

describe('matches errors and security', () => {
  it('400 kind_mismatch on other kinds', async () => {
    const reply = await world.call(`/v1/tracking/lists/${entityList}/matches`, { key: tenant.key });
    expect(reply.status, show(reply)).toBe(400);
    expect(reply.body.detail.code).toBe('kind_mismatch');
  });

  it.each([
    ['?match_types=fuzzy', 'match_types'],
    ['?limit=1001', 'limit'],
    ['?scope=head', 'scope'],
  ])('%s -> 422', async (query, param) => {
    const reply = await matches(query);
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail[0].loc).toEqual(['query', param]);
  });

  it('403 for a country outside the key; 401 without a key; 404 for another project', async () => {
    expect((await matches('?country=FR')).status).toBe(403);
    expect((await world.call(`/v1/tracking/lists/${mentionList}/matches`)).status).toBe(401);
    const stranger = await world.tenant();
    expect((await matches('', stranger.key)).body).toEqual({ detail: 'tracking list not found' });
  });
});
