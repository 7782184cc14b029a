// GET /v1/articles and /v1/articles/{id}: exact values over a hand-made world, the plan's
// category scope, every error code, and what each key may see.
import { beforeAll, describe, expect, it } from 'vitest';
import { ArticleDetailSchema, ArticleListSchema } from '../../functions/articles/schemas';
import { queryRows } from '../../shared/db/raw';
import { articleRecords, at, ELECTION, FRENCH, hour, MESSI, NOW, OLD, SOCCER, STARTUP, TENNIS, UNTAGGED } from '../fixtures/articles';
import { seed } from '../helpers/seed';
import { createWorld, show, type Tenant, type World } from '../helpers/world';

let world: World;
let full: Tenant;
let restricted: Tenant;
let limited: Tenant;
let bare: Tenant;

beforeAll(async () => {
  world = await createWorld('articles');
  world.setNow(NOW);
  await seed(world, articleRecords());
  full = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
  restricted = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] }, { countries: ['US'] });
  limited = await world.tenant({ plan: 'grow', countries: ['US', 'GB', 'DE'], categories: ['/Sports'] });
  bare = await world.tenant({ countries: [] });
}, 60_000);

const list = (query = '', key = full.key) => world.call(`/v1/articles${query}`, { key });
const ids = (reply: { body: any }) => reply.body.articles.map((a: any) => a.id);

const SOCCER_ARTICLE = {
  id: SOCCER,
  url: 'https://goal.example.com/story/1',
  cabinet_url: `https://app.example.com/article/${SOCCER}`,
  title: 'Soccer final thriller',
  domain: 'goal.example.com',
  publisher: 'GOAL',
  language: 'en',
  languages: ['en'],
  countries: ['GB', 'US'],
  published_at: at(31),
  first_seen_at: at(30),
  last_seen_at: at(19),
  impressions: 1200,
  categories: [{ name: '/Sports/Soccer', confidence: 0.9 }],
  image_url: 'https://goal.example.com/img/1.jpg',
};

describe('GET /v1/articles (happy)', () => {
  it("lists the articles seen in the key's markets, newest first, with exact fields", async () => {
    const reply = await list();
    expect(reply.status, show(reply)).toBe(200);
    expect(ArticleListSchema.safeParse(reply.body).success).toBe(true);
    expect(ids(reply), 'the French-only article is outside the markets').toEqual([UNTAGGED, STARTUP, ELECTION, TENNIS, SOCCER, OLD]);
    expect(reply.body).toMatchObject({ total: 6, limit: 50, offset: 0, history_clamped: false });
    expect(reply.body.articles[4]).toEqual(SOCCER_ARTICLE);
    expect(reply.body.articles[2]).toMatchObject({
      countries: ['DE', 'US'],
      languages: ['de', 'es'],
      first_seen_at: at(6),
      impressions: 310,
    });
    expect(reply.body.articles[3]).toMatchObject({
      published_at: null,
      categories: [
        { name: '/Sports/Tennis', confidence: 0.8 },
        { name: '/News', confidence: 0.3 },
      ],
    });
  });

  it('country and lang describe and filter by the requested markets only', async () => {
    const us = await list('?country=us');
    expect(ids(us)).toEqual([UNTAGGED, ELECTION, TENNIS, SOCCER, OLD]);
    expect(us.body.articles[3]).toMatchObject({ countries: ['US'], impressions: 1100, last_seen_at: at(19), first_seen_at: at(30) });
    expect(us.body.articles[1]).toMatchObject({ countries: ['US'], languages: ['es'], first_seen_at: at(5), impressions: 300 });
    const german = await list('?lang=de');
    expect(ids(german)).toEqual([STARTUP, ELECTION]);
    expect(german.body.articles[1]).toMatchObject({ countries: ['DE'], languages: ['de'], impressions: 10 });
  });

  it.each([
    ['?category=/Sports', [TENNIS, SOCCER]],
    ['?category=/News', [ELECTION, TENNIS, OLD]],
    ['?category=/Sports/Soccer;/Tech', [STARTUP, SOCCER]],
    ['?category=/Sports;/News&match=all', [TENNIS]],
    ['?category=/Spo', []],
    [`?entity=${encodeURIComponent(MESSI.kg_id)}`, [SOCCER]],
    ['?entity=%20lionel%20MESSI', [SOCCER]],
    [`?entity=${encodeURIComponent(`${MESSI.kg_id};Buenos Aires`)}&match=all`, [SOCCER]],
    ['?entity=Nobody', []],
    ['?q=ELECTION', [ELECTION]],
    ['?q=star%20wins', [TENNIS]],
    ['?q=wins%20TENN', [TENNIS]], // every word begins a title word, in any order
    ['?q=elect', [ELECTION]],
    ['?q=lection', []], // inside a word is not a match
    ['?q=star%20losses', []],
    [`?date_from=${hour(12)}&date_to=${hour(4)}`, [ELECTION, TENNIS]],
    ['?sort_by=impressions', [SOCCER, ELECTION, STARTUP, TENNIS, OLD, UNTAGGED]],
    ['?sort_by=published_at&sort_order=asc', [OLD, SOCCER, ELECTION, STARTUP, UNTAGGED, TENNIS]],
    ['?sort_by=last_seen&sort_order=asc', [OLD, SOCCER, TENNIS, ELECTION, STARTUP, UNTAGGED]], // ties by id
    ['?sort_order=asc&limit=2&offset=1', [SOCCER, TENNIS]],
  ])('%s', async (query, expected) => {
    const reply = await list(query);
    expect(reply.status, show(reply)).toBe(200);
    expect(ids(reply)).toEqual(expected);
  });

  it('total counts every match; an offset past the end gives an empty page', async () => {
    expect((await list('?limit=2')).body).toMatchObject({ total: 6, limit: 2 });
    const past = await list('?offset=10');
    expect(past.body).toMatchObject({ articles: [], total: 6, offset: 10 });
  });

  it('a start before the plan history is moved forward and reported', async () => {
    const short = await world.tenant({ countries: ['US'], historyDays: 30 });
    const reply = await list('?date_from=2026-01-01T00:00:00Z', short.key);
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.history_clamped).toBe(true);
    expect(ids(reply), 'the 40-day-old article lies before the history').toEqual([UNTAGGED, ELECTION, TENNIS, SOCCER]);
    expect((await list('?date_to=2026-10-01T00:00:00Z', short.key)).body).toMatchObject({ articles: [], total: 0, history_clamped: false });
  });
});

describe('GET /v1/articles/{id} (happy)', () => {
  it('the article with summary, metadata, entities and its in-scope market profiles', async () => {
    const reply = await world.call(`/v1/articles/${SOCCER}`, { key: full.key });
    expect(reply.status, show(reply)).toBe(200);
    expect(ArticleDetailSchema.safeParse(reply.body).success).toBe(true);
    const entityIds = Object.fromEntries(
      (await queryRows<{ name: string; id: string }>(world.db, 'SELECT name, id::text FROM entities')).map((r) => [r.name, r.id]),
    );
    expect(reply.body).toEqual({
      ...SOCCER_ARTICLE,
      data_as_of: expect.any(String),
      summary: 'Soccer final thriller: summary',
      modified_at: null,
      article_meta: {
        meta_title: 'Soccer final thriller | goal.example.com',
        meta_description: 'Soccer final thriller',
        headline: 'Soccer final thriller',
        section: 'Top',
      },
      entities: [
        { id: entityIds['Lionel Messi'], kg_id: MESSI.kg_id, name: 'Lionel Messi', type: 'person', mentions: 3, unified_score: 0.91 },
        { id: entityIds['Buenos Aires'], kg_id: null, name: 'Buenos Aires', type: 'place', mentions: 1, unified_score: 0.4 },
      ],
      markets: [
        { country: 'GB', language: 'en', first_seen_at: at(25), last_seen_at: at(23), impressions: 100, avg_position: 4 },
        { country: 'US', language: 'en', first_seen_at: at(30), last_seen_at: at(19), impressions: 1100, avg_position: 2 },
      ],
    });
  });

  it("a restricted key sees only its markets' profiles", async () => {
    const reply = await world.call(`/v1/articles/${SOCCER}`, { key: restricted.key });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body).toMatchObject({ countries: ['US'], impressions: 1100, first_seen_at: at(30) });
    expect(reply.body.markets.map((m: any) => m.country)).toEqual(['US']);
  });
});

describe('category-limited plans', () => {
  it('the list holds only articles with a category under the chosen top levels', async () => {
    const reply = await list('', limited.key);
    expect(reply.status, show(reply)).toBe(200);
    expect(ids(reply)).toEqual([TENNIS, SOCCER]);
    expect(reply.body.total).toBe(2);
  });

  it.each(['/Sports', '/News', '/Sports/Soccer', 'not-a-path'])('category=%s -> 403 endpoint_not_in_plan_scope', async (category) => {
    const reply = await list(`?category=${category}`, limited.key);
    expect(reply.status, show(reply)).toBe(403);
    expect(reply.body.detail).toEqual({
      code: 'endpoint_not_in_plan_scope',
      message:
        'The `category` filter of /v1/articles cannot be limited to your chosen categories, so it is closed to category-limited plans.',
    });
  });

  it.each([
    [ELECTION, '/News/Politics'],
    [STARTUP, '/Tech'],
    [UNTAGGED, 'no category'],
  ])('%s (%s) -> 404 out_of_plan_scope', async (id) => {
    const reply = await world.call(`/v1/articles/${id}`, { key: limited.key });
    expect(reply.status, show(reply)).toBe(404);
    expect(reply.body.detail).toEqual({ code: 'out_of_plan_scope', message: 'The article lies outside the categories of your plan.' });
  });

  it('an article in the plan is served; one outside the markets stays a plain 404', async () => {
    expect((await world.call(`/v1/articles/${TENNIS}`, { key: limited.key })).status).toBe(200);
    const foreign = await world.call(`/v1/articles/${FRENCH}`, { key: limited.key });
    expect(foreign.status, show(foreign)).toBe(404);
    expect(foreign.body).toEqual({ detail: `Article '${FRENCH}' not found` });
  });
});

describe('errors', () => {
  it.each([
    ['?limit=0', ['query', 'limit'], 'greater_than_equal'],
    ['?limit=201', ['query', 'limit'], 'less_than_equal'],
    ['?offset=-1', ['query', 'offset'], 'greater_than_equal'],
    ['?sort_by=derived', ['query', 'sort_by'], 'enum'],
    ['?sort_order=up', ['query', 'sort_order'], 'enum'],
    ['?match=some', ['query', 'match'], 'enum'],
    ['?country=USA', ['query', 'country'], 'string_pattern_mismatch'],
    ['?lang=eng', ['query', 'lang'], 'string_pattern_mismatch'],
    ['?q=a', ['query', 'q'], 'string_too_short'],
    ['?date_from=yesterday', ['query', 'date_from'], 'datetime_parsing'],
    ['?category=Sports', ['query', 'category'], 'string_pattern_mismatch'],
    ['?category=;', ['query', 'category'], 'string_pattern_mismatch'],
    ['?entity=;%20;', ['query', 'entity'], 'value_error'],
    [`?date_from=${hour(2)}&date_to=${hour(3)}`, ['query', 'date_to'], 'value_error'],
  ])('%s -> 422', async (query, loc, type) => {
    const reply = await list(query);
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail[0]).toMatchObject({ loc, type });
  });

  it('a malformed id is 422; an unknown id is 404', async () => {
    const bad = await world.call('/v1/articles/not-a-uuid', { key: full.key });
    expect(bad.status, show(bad)).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['path', 'id'] });
    const unknown = await world.call('/v1/articles/00000000-0000-4000-8000-000000000000', { key: full.key });
    expect(unknown.status, show(unknown)).toBe(404);
    expect(unknown.body).toEqual({ detail: "Article '00000000-0000-4000-8000-000000000000' not found" });
  });

  it('an explicit country outside the key is 403 naming it and the allowed ones', async () => {
    const reply = await list('?country=FR');
    expect(reply.status, show(reply)).toBe(403);
    expect(reply.body).toEqual({ detail: "Region 'FR' is not allowed for this API key. Allowed regions: US, GB, DE." });
  });

  it.each(['/v1/articles', `/v1/articles/${SOCCER}`])('%s: 403 market_not_entitled when the project has no markets', async (path) => {
    const reply = await world.call(path, { key: bare.key });
    expect(reply.status, show(reply)).toBe(403);
    expect(reply.body.detail.code).toBe('market_not_entitled');
  });
});

describe('security', () => {
  it.each(['/v1/articles', `/v1/articles/${SOCCER}`])('%s: 401 without a key or with a key in the query string', async (path) => {
    const none = await world.call(path);
    expect(none.status, show(none)).toBe(401);
    expect(none.body.detail).toMatch(/Missing API key/);
    expect((await world.call(`${path}?api_key=${full.key}`)).status).toBe(401);
  });

  it('a restricted key lists only its markets and cannot name another', async () => {
    const reply = await list('', restricted.key);
    expect(ids(reply)).toEqual([UNTAGGED, ELECTION, TENNIS, SOCCER, OLD]);
    for (const article of reply.body.articles) expect(article.countries).toEqual(['US']);
    const gb = await list('?country=GB', restricted.key);
    expect(gb.status, show(gb)).toBe(403);
    expect(gb.body.detail).toBe("Region 'GB' is not allowed for this API key. Allowed regions: US.");
  });

  it('an article seen only in another market is 404, exactly like an unknown id', async () => {
    const german = await world.call(`/v1/articles/${STARTUP}`, { key: restricted.key });
    expect(german.status, show(german)).toBe(404);
    expect(german.body).toEqual({ detail: `Article '${STARTUP}' not found` });
    expect((await world.call(`/v1/articles/${STARTUP}`, { key: full.key })).status).toBe(200);
    expect((await world.call(`/v1/articles/${FRENCH}`, { key: full.key })).status).toBe(404);
    expect((await world.call(`/v1/articles/${FRENCH}`, { key: await world.internalKey() })).status).toBe(200);
  });
});
