// GET /v1/analytics/categories: exact rows over the hand-made world, every row of the oracle data set
// against plain SQL over raw observations joined with article_categories (a path covers its
// descendants: shared/schemas/categories.ts), errors and plan scope.
import { beforeAll, describe, expect, it } from 'vitest';
import { CategoryAnalyticsSchema } from '../../functions/articles/categories-schemas';
import { queryRows } from '../../shared/db/raw';
import { ceilHour } from '../../shared/rollups/buckets';
import { articleRecords, at, hour, NOW } from '../fixtures/articles';
import { dataset, NAIVE_MEMBERS } from '../fixtures/oracle';
import { seed } from '../helpers/seed';
import { createWorld, show, type Tenant, type World } from '../helpers/world';

const ORACLE_NOW = '2026-11-10T10:30:00.000Z';
let small: World;
let oracle: World;
let full: Tenant;
let restricted: Tenant;
let oracleKey: string;
let twoMarkets: string;

beforeAll(async () => {
  [small, oracle] = await Promise.all([createWorld('articles_analytics'), createWorld('articles_analytics_oracle')]);
  small.setNow(NOW);
  oracle.setNow(ORACLE_NOW);
  await seed(small, articleRecords());
  for (const batch of dataset()) await seed(oracle, batch);
  full = await small.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
  restricted = await small.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] }, { countries: ['US'] });
  oracleKey = (await oracle.tenant({ plan: 'enterprise', countries: ['US', 'GB', 'DE'] })).key;
  twoMarkets = (await oracle.tenant({ plan: 'enterprise', countries: ['US', 'GB', 'DE'] }, { countries: ['US', 'GB'] })).key;
}, 120_000);

const analytics = (query = '', key = full.key, world = small) => world.call(`/v1/analytics/categories${query}`, { key });
const WINDOW = `?period=custom&date_from=${hour(48)}&date_to=${NOW}`;
const row = (
  name: string,
  impressions: number,
  publications: number,
  avg_position: number,
  previous = 0,
  delta_pct: number | null = null,
) => ({ name, impressions, previous_impressions: previous, publications, publishers: publications, avg_position, delta_pct });

describe('GET /v1/analytics/categories (exact)', () => {
  it('one row per path with impressions (a path covers its descendants), most first, ties by path', async () => {
    const reply = await analytics(WINDOW);
    expect(reply.status, show(reply)).toBe(200);
    expect(CategoryAnalyticsSchema.safeParse(reply.body).success).toBe(true);
    expect(reply.body.scope).toEqual({
      country: 'all',
      markets: ['de', 'gb', 'us'],
      lang: 'all',
      from: at(48),
      to: '2026-11-20T12:30:00+00:00',
      prev_from: '2026-11-16T11:30:00+00:00',
      prev_to: at(48),
      history_days: 365,
      clamped: false,
    });
    // Soccer: US 11 x 100 at 2 and GB 2 x 50 at 4; the French article is outside the markets. /Sports is
    // Soccer + Tennis (3200 / 1320 = 2.42); /News is Tennis (tagged /News) + Election (/News/Politics): 980 / 430.
    expect(reply.body.categories).toEqual([
      row('/Sports', 1320, 2, 2.42),
      row('/Sports/Soccer', 1200, 1, 2.17),
      row('/News', 430, 2, 2.28),
      row('/News/Politics', 310, 1, 1.23),
      row('/Tech', 140, 1, 3),
      row('/Sports/Tennis', 120, 1, 5),
    ]);
    expect(reply.body).toMatchObject({ total: 6, limit: 50, offset: 0 });
  });

  it('delta_pct against the previous window of the same length', async () => {
    // [24h ago, 12h ago): soccer US 5 x 100 + GB 50; before it, [36h ago, 24h ago): US 6 x 100 + GB 50.
    const reply = await analytics(`?period=custom&date_from=${hour(24)}&date_to=${hour(12)}`);
    expect(reply.body.categories).toEqual([row('/Sports', 550, 1, 2.18, 650, -15.4), row('/Sports/Soccer', 550, 1, 2.18, 650, -15.4)]);
  });

  it.each([
    ['&top_level=true', ['/Sports', '/News', '/Tech']],
    ['&parent=/Sports', ['/Sports/Soccer', '/Sports/Tennis']],
    ['&parent=/News', ['/News/Politics']],
    ['&parent=/Spo', []],
    ['&country=US', ['/Sports', '/Sports/Soccer', '/News', '/News/Politics', '/Sports/Tennis']],
    ['&lang=de', ['/Tech', '/News', '/News/Politics']],
    ['&limit=2&offset=1', ['/Sports/Soccer', '/News']],
  ])('%s', async (query, names) => {
    const reply = await analytics(`${WINDOW}${query}`);
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.categories.map((c: any) => c.name)).toEqual(names);
  });

  it('a restricted key measures its markets only', async () => {
    const reply = await analytics(WINDOW, restricted.key);
    expect(reply.body.scope.markets).toEqual(['us']);
    expect(reply.body.categories[0]).toEqual(row('/Sports', 1220, 2, 2.3));
    expect((await analytics('?country=DE', restricted.key)).status).toBe(403);
  });
});

interface NaiveRow {
  name: string;
  imp: number;
  ps: number;
  pubs: number;
  publishers: number;
}

/** Plain SQL over raw observations and the naive category membership (path and ancestors): impressions, position sum, distinct articles and domains. */
async function naive(markets: string[], language: string | null, from: Date, to: Date) {
  const rows = await queryRows<NaiveRow>(
    oracle.db,
    `SELECT ac.name, sum(o.impressions)::float8 AS imp, sum(o.impressions::float8 * o.position) AS ps,
            count(DISTINCT o.url_id) FILTER (WHERE o.impressions > 0)::int AS pubs,
            count(DISTINCT a.domain) FILTER (WHERE o.impressions > 0)::int AS publishers
     FROM observations o JOIN (SELECT m.key AS name, m.url_id FROM (${NAIVE_MEMBERS}) m WHERE m.kind = 'category') ac ON ac.url_id = o.url_id
     JOIN articles a ON a.id = o.url_id
     WHERE o.country = ANY($1::text[]) AND ($2::text IS NULL OR o.language = $2) AND o.hour >= $3 AND o.hour < $4
     GROUP BY ac.name`,
    [markets, language, ceilHour(from).toISOString(), ceilHour(to).toISOString()],
  );
  return new Map(rows.map((r) => [r.name, r]));
}

/** The reference ranking of a reply's window: paths with impressions, most first, ties by path (JS `<`). */
async function reference(
  scope: { from: string; to: string; prev_from: string; prev_to: string },
  markets: string[],
  language: string | null,
) {
  const [cur, prev] = await Promise.all([
    naive(markets, language, new Date(scope.from), new Date(scope.to)),
    naive(markets, language, new Date(scope.prev_from), new Date(scope.prev_to)),
  ]);
  const expected = [...cur.values()].filter((r) => r.imp > 0).sort((a, b) => b.imp - a.imp || (a.name < b.name ? -1 : 1));
  return { expected, prev };
}

/** Each row of the reply against the reference row at the same place. */
function expectRows(categories: any[], expected: NaiveRow[], prev: Map<string, NaiveRow>) {
  expect(categories.map((c) => c.name)).toEqual(expected.map((r) => r.name));
  for (const [i, want] of expected.entries()) {
    const before = prev.get(want.name)?.imp ?? 0;
    const got = categories[i];
    expect(got, want.name).toMatchObject({
      impressions: want.imp,
      previous_impressions: before,
      publications: want.pubs,
      publishers: want.publishers,
    });
    expect(got.avg_position).toBeCloseTo(want.ps / want.imp, 2);
    expect(got.delta_pct).toBe(before > 0 ? Math.round(((want.imp - before) / before) * 1000) / 10 : null);
  }
}

describe('GET /v1/analytics/categories (against raw observations)', () => {
  it.each([
    ['', ['US', 'GB', 'DE'], null],
    ['?period=30d', ['US', 'GB', 'DE'], null],
    ['?period=24h&country=US&lang=en', ['US'], 'en'],
    ['?period=custom&date_from=2026-11-02T07:13:00Z&date_to=2026-11-06T19:41:00Z&lang=de', ['US', 'GB', 'DE'], 'de'],
    ['?period=custom&date_from=2026-11-03T00:00:00Z&date_to=2026-11-09T06:00:00Z&country=GB', ['GB'], null],
  ])('%s', async (query, markets, language) => {
    const reply = await analytics(query, oracleKey, oracle);
    expect(reply.status, show(reply)).toBe(200);
    const { expected, prev } = await reference(reply.body.scope, markets, language);
    expect(expected.length, 'the window holds data').toBeGreaterThan(1);
    expect(reply.body.total).toBe(expected.length);
    expectRows(reply.body.categories, expected, prev);
  });

  // /Sports holds /Sports/Soccer alone in this data set, so the two tie in every scope and the path
  // orders them: a page that starts between them shows whether the page whose distinct counts are
  // read (ranked in SQL) is the page the sums rank (in JS).
  it.each([
    ['?period=30d&country=US', 'every market', ['US'], null],
    ['?period=30d', 'two of the three markets', ['US', 'GB'], null],
    ['?period=7d&lang=en', 'every market', ['US', 'GB', 'DE'], 'en'],
    ['?period=30d', 'every market', ['US', 'GB', 'DE'], null],
  ])('%s, a key of %s: the page after /Sports, inside its tie', async (query, keyMarkets, markets, language) => {
    const key = keyMarkets === 'every market' ? oracleKey : twoMarkets;
    const whole = await analytics(query, key, oracle);
    expect(whole.status, show(whole)).toBe(200);
    const { expected, prev } = await reference(whole.body.scope, markets, language);
    const tie = expected.findIndex((r) => r.name === '/Sports');
    expect(expected[tie + 1]).toMatchObject({ name: '/Sports/Soccer', imp: expected[tie].imp });
    const offset = tie + 1;
    const page = await analytics(`${query}${query ? '&' : '?'}limit=2&offset=${offset}`, key, oracle);
    expect(page.status, show(page)).toBe(200);
    expect(page.body.scope).toEqual(whole.body.scope);
    expect(page.body).toMatchObject({ total: expected.length, limit: 2, offset });
    expectRows(page.body.categories, expected.slice(offset, offset + 2), prev);
  });
});

describe('errors and plan scope', () => {
  it.each([
    ['?period=custom', ['query', 'date_from'], 'missing'],
    ['?period=90d', ['query', 'period'], 'enum'],
    ['?limit=201', ['query', 'limit'], 'less_than_equal'],
    ['?offset=-3', ['query', 'offset'], 'greater_than_equal'],
    ['?country=USA', ['query', 'country'], 'string_pattern_mismatch'],
    ['?parent=Sports', ['query', 'parent'], 'string_pattern_mismatch'],
    ['?parent=/Sports;/News', ['query', 'parent'], 'value_error'],
    ['?parent=/Sports&top_level=true', ['query', 'parent'], 'value_error'],
    ['?top_level=maybe', ['query', 'top_level'], 'enum'],
  ])('%s -> 422', async (query, loc, type) => {
    const reply = await analytics(query);
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail[0]).toMatchObject({ loc, type });
  });

  it('401 without a key; 403 for a country outside the key; 403 market_not_entitled without markets', async () => {
    expect((await small.call('/v1/analytics/categories')).status).toBe(401);
    const fr = await analytics('?country=FR');
    expect(fr.status, show(fr)).toBe(403);
    expect(fr.body).toEqual({ detail: "Region 'FR' is not allowed for this API key. Allowed regions: US, GB, DE." });
    const bare = await small.tenant({ countries: [] });
    const none = await analytics('', bare.key);
    expect(none.status, show(none)).toBe(403);
    expect(none.body.detail.code).toBe('market_not_entitled');
  });

  it.each(['start', 'grow'] as const)(
    '%s with chosen categories -> 403 endpoint_not_in_plan_scope, even with bad parameters',
    async (plan) => {
      const { key } = await small.tenant({ plan, countries: ['US'], categories: ['/Sports'] });
      for (const query of ['', '?parent=/Sports', '?limit=999']) {
        const reply = await analytics(query, key);
        expect(reply.status, show(reply)).toBe(403);
        expect(reply.body.detail).toEqual({
          code: 'endpoint_not_in_plan_scope',
          message: '/v1/analytics/categories cannot be limited to your chosen categories, so it is closed to category-limited plans.',
        });
      }
    },
  );
});
