// GET /v1/themes, /v1/themes/{id}/topics, /v1/topics/{id}/trends: counts computed from the data
// the key may see, order by n_articles, unknown themes as empty arrays, sort and paging.
import { beforeAll, describe, expect, it } from 'vitest';
import { ThemesSchema, ThemeTopicsSchema, TopicTrendsSchema } from '../../functions/trends/schemas';
import { BUDGET, ELECTION, FINALS, THEME_EMPTY, THEME_NEWS, TOPIC_POLITICS, TOPIC_SPORT, TOUR, UNKNOWN } from '../fixtures/trends';
import { trendsWorld } from '../helpers/trends-world';
import { show, type Tenant, type World } from '../helpers/world';

let world: World;
let internal: string;
let full: Tenant;
let usOnly: Tenant;
let sportsPlan: Tenant;

beforeAll(async () => {
  ({ world, internal, full, usOnly, sportsPlan } = await trendsWorld('trends_hierarchy'));
}, 60_000);

const get = (path: string, key = internal) => world.call(path, { key });
const counts = (nodes: any[]) => nodes.map((n) => [n.id, n.n_trends, n.n_articles]);

describe('GET /v1/themes', () => {
  it('level-2 nodes by n_articles descending, distinct articles counted once', async () => {
    const reply = await get('/v1/themes');
    expect(reply.status, show(reply)).toBe(200);
    expect(ThemesSchema.safeParse(reply.body).success).toBe(true);
    // Article 4 belongs to two trends of the theme: 9 distinct articles, 10 assignments.
    expect(counts(reply.body.themes)).toEqual([
      [THEME_NEWS, 4, 9],
      [THEME_EMPTY, 0, 0],
    ]);
    expect(reply.body.themes[0]).toEqual({
      id: THEME_NEWS,
      level: 2,
      label: 'News',
      summary: 'News summary',
      label_en: 'News',
      label_ru: 'News (ru)',
      label_local: null,
      label_local_lang: null,
      n_trends: 4,
      n_articles: 9,
      parent_id: null,
      state: null,
    });
  });

  it("restricted keys count only their trends and their countries' articles; plans only their categories", async () => {
    expect(counts((await get('/v1/themes', full.key)).body.themes)).toEqual([
      [THEME_NEWS, 3, 8],
      [THEME_EMPTY, 0, 0],
    ]);
    expect(counts((await get('/v1/themes', usOnly.key)).body.themes)).toEqual([
      [THEME_NEWS, 2, 4],
      [THEME_EMPTY, 0, 0],
    ]);
    expect(counts((await get('/v1/themes', sportsPlan.key)).body.themes)).toEqual([
      [THEME_NEWS, 3, 1],
      [THEME_EMPTY, 0, 0],
    ]);
  });

  it('401 without a key', async () => {
    expect((await world.call('/v1/themes')).status).toBe(401);
  });
});

describe('GET /v1/themes/{theme_id}/topics', () => {
  it('level-1 children by n_articles descending with their parent', async () => {
    const reply = await get(`/v1/themes/${THEME_NEWS}/topics`);
    expect(reply.status, show(reply)).toBe(200);
    expect(ThemeTopicsSchema.safeParse(reply.body).success).toBe(true);
    expect(reply.body.theme_id).toBe(THEME_NEWS);
    expect(counts(reply.body.topics)).toEqual([
      [TOPIC_POLITICS, 2, 8],
      [TOPIC_SPORT, 2, 1],
    ]);
    expect(reply.body.topics[0]).toMatchObject({ level: 1, label: 'Politics', parent_id: THEME_NEWS, state: 'hot' });
  });

  it('counts follow the key', async () => {
    expect(counts((await get(`/v1/themes/${THEME_NEWS}/topics`, usOnly.key)).body.topics)).toEqual([
      [TOPIC_POLITICS, 1, 4],
      [TOPIC_SPORT, 1, 0],
    ]);
  });

  it.each([
    ['an unknown theme', UNKNOWN],
    ['a theme without topics', THEME_EMPTY],
    ['a topic id', TOPIC_SPORT],
  ])('%s gives an empty array, not 404', async (_, id) => {
    const reply = await get(`/v1/themes/${id}/topics`);
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body).toEqual({ data_as_of: expect.any(String), theme_id: id, topics: [] });
  });

  it('422 for a malformed id; 401 without a key', async () => {
    const bad = await get('/v1/themes/nope/topics');
    expect(bad.status, show(bad)).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['path', 'theme_id'], type: 'uuid_parsing' });
    expect((await world.call(`/v1/themes/${THEME_NEWS}/topics`)).status).toBe(401);
  });
});

describe('GET /v1/topics/{topic_id}/trends', () => {
  const trends = (id: string, query = '', key = internal) => get(`/v1/topics/${id}/trends${query}`, key);
  const ids = (reply: { body: any }) => reply.body.trends.map((t: any) => t.id);

  it('every trend of the topic, nulls last, exact total', async () => {
    const reply = await trends(TOPIC_SPORT);
    expect(reply.status, show(reply)).toBe(200);
    expect(TopicTrendsSchema.safeParse(reply.body).success).toBe(true);
    expect(ids(reply)).toEqual([TOUR, FINALS]);
    expect(reply.body).toMatchObject({ topic_id: TOPIC_SPORT, total: 2, limit: 50, offset: 0 });
    expect(reply.body.trends[0]).toMatchObject({
      id: TOUR,
      article_count: 1,
      peak_date: '2026-11-17',
      cabinet_url: `https://app.example.com/trend/${TOUR}`,
    });
  });

  it.each([
    [TOPIC_SPORT, '?sort_order=asc', [TOUR, FINALS]],
    [TOPIC_SPORT, '?sort_by=article_count&sort_order=asc', [FINALS, TOUR]],
    [TOPIC_POLITICS, '?sort_by=first_seen_at', [BUDGET, ELECTION]],
    [TOPIC_POLITICS, '?sort_by=article_count', [ELECTION, BUDGET]],
    [TOPIC_POLITICS, '?limit=1&offset=1', [BUDGET]],
    [UNKNOWN, '', []],
    [THEME_NEWS, '', []],
  ])('%s %s', async (id, query, expected) => {
    const reply = await trends(id, query);
    expect(reply.status, show(reply)).toBe(200);
    expect(ids(reply)).toEqual(expected);
  });

  it('region-scoped for restricted keys', async () => {
    const reply = await trends(TOPIC_SPORT, '', usOnly.key);
    expect(ids(reply)).toEqual([FINALS]);
    expect(reply.body.total).toBe(1);
    expect(ids(await trends(TOPIC_POLITICS, '', usOnly.key))).toEqual([ELECTION]);
  });

  it.each([
    ['?sort_by=label', 'sort_by'],
    ['?sort_order=down', 'sort_order'],
    ['?limit=201', 'limit'],
    ['?offset=-1', 'offset'],
  ])('422 %s', async (query, param) => {
    const reply = await trends(TOPIC_SPORT, query);
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail[0].loc).toEqual(['query', param]);
  });

  it('401 without a key', async () => {
    expect((await world.call(`/v1/topics/${TOPIC_SPORT}/trends`)).status).toBe(401);
  });
});

describe('MCP tools run the trends routes in-process', () => {
  const tool = (name: string, args: object, key = internal) =>
    world.call('/mcp', {
      method: 'POST',
      key,
      headers: { Accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    });

  it.each([
    ['list_trends', { sort_by: 'article_count', min_articles: 0 }, '/v1/trends?sort_by=article_count&min_articles=0'],
    ['get_trend', { trend_id: ELECTION }, `/v1/trends/${ELECTION}`],
    ['list_trend_articles', { trend_id: ELECTION, role: 'F1_trigger' }, `/v1/trends/${ELECTION}/articles?role=F1_trigger`],
    ['list_trend_parents', { trend_id: BUDGET }, `/v1/trends/${BUDGET}/parents`],
    ['list_trend_children', { trend_id: ELECTION }, `/v1/trends/${ELECTION}/children`],
    ['list_themes', {}, '/v1/themes'],
    ['list_theme_topics', { theme_id: THEME_NEWS }, `/v1/themes/${THEME_NEWS}/topics`],
    ['list_topic_trends', { topic_id: TOPIC_SPORT }, `/v1/topics/${TOPIC_SPORT}/trends`],
    ['get_trend_rollup', { trend_id: ELECTION, period: '30d' }, `/v1/trends/${ELECTION}/rollup?period=30d`],
  ])('%s gives the REST body', async (name, args, path) => {
    const rest = await get(path);
    expect(rest.status, show(rest)).toBe(200);
    const reply = await tool(name, args);
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.result.isError, show(reply)).toBe(false);
    expect(JSON.parse(reply.body.result.content[0].text)).toEqual(rest.body);
  });

  it('an invisible trend is a tool error with the REST 404 detail', async () => {
    const reply = await tool('get_trend', { trend_id: TOUR }, usOnly.key);
    expect(reply.body.result.isError, show(reply)).toBe(true);
    expect(reply.body.result.content[0].text).toContain('not found');
  });
});
