// GET /v1/trends, /v1/trends/{id}(/articles|/parents|/children): exact values over a hand-made
// world, every filter, sort (nulls last), error code, and the region gate (invisible = unknown).
import { beforeAll, describe, expect, it } from 'vitest';
import { ChildrenSchema, ParentsSchema, TrendArticlesSchema, TrendDetailSchema, TrendListSchema } from '../../functions/trends/schemas';
import { article, BUDGET, ELECTION, FINALS, THEME_EMPTY, THEME_NEWS, TOPIC_POLITICS, TOPIC_SPORT, TOUR, UNKNOWN } from '../fixtures/trends';
import { trendsWorld } from '../helpers/trends-world';
import { show, type Tenant, type World } from '../helpers/world';

let world: World;
let internal: string;
let full: Tenant;
let usOnly: Tenant;
let sportsPlan: Tenant;

beforeAll(async () => {
  ({ world, internal, full, usOnly, sportsPlan } = await trendsWorld('trends'));
}, 60_000);

const get = (path: string, key = internal) => world.call(path, { key });
const ids = (reply: { body: any }, field = 'trends') => reply.body[field].map((t: any) => t.id);

describe('GET /v1/trends (happy)', () => {
  it('lists trends with articles, newest article first, with exact derived fields', async () => {
    const reply = await get('/v1/trends');
    expect(reply.status, show(reply)).toBe(200);
    expect(TrendListSchema.safeParse(reply.body).success).toBe(true);
    expect(ids(reply)).toEqual([ELECTION, BUDGET, TOUR]);
    expect(reply.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(reply.body.trends[0]).toEqual({
      id: ELECTION,
      cabinet_url: `https://app.example.com/trend/${ELECTION}`,
      label: 'Election',
      summary: 'Election summary',
      label_en: 'Election',
      label_ru: 'Election (ru)',
      label_local: null,
      label_local_lang: null,
      state: 'hot',
      structural_type: 'event_driven',
      semantic_type: 'news',
      semantic_type_confidence: 0.8,
      article_count: 6,
      first_seen_at: '2026-05-01T12:00:00+00:00',
      last_article_at: '2026-11-20T10:00:00+00:00',
      peak_date: '2026-11-19',
      expected_next_peak: null,
      key_entities: ['Election person'],
      key_topics: ['election'],
      topic_id: TOPIC_POLITICS,
      primary_country: 'US',
      country_scope: ['US', 'GB'],
    });
    // The line's constant peak_date (2020-01-01) is ignored: the busiest day is derived.
    expect(reply.body.trends[1]).toMatchObject({
      article_count: 3,
      peak_date: '2026-11-18',
      first_seen_at: '2026-11-15T09:00:00+00:00',
      last_article_at: '2026-11-18T07:00:00+00:00',
    });
  });

  it.each([
    ['?sort_by=article_count&sort_order=asc', [TOUR, BUDGET, ELECTION]],
    ['?sort_by=article_count', [ELECTION, BUDGET, TOUR]],
    ['?sort_by=first_seen_at', [TOUR, BUDGET, ELECTION]],
    ['?sort_by=first_seen_at&sort_order=asc', [ELECTION, BUDGET, TOUR]],
    ['?min_articles=0', [ELECTION, BUDGET, TOUR, FINALS]],
    ['?min_articles=0&sort_order=asc', [TOUR, BUDGET, ELECTION, FINALS]],
    ['?min_articles=0&sort_by=first_seen_at&sort_order=asc', [ELECTION, BUDGET, TOUR, FINALS]],
    ['?min_articles=0&sort_by=article_count&sort_order=asc', [FINALS, TOUR, BUDGET, ELECTION]],
    ['?min_articles=3', [ELECTION, BUDGET]],
    ['?min_articles=4', [ELECTION]],
    ['?min_articles=100000', []],
    ['?state=decayed', [BUDGET]],
    ['?state=emerging', []],
    ['?state=emerging&min_articles=0', [FINALS]],
    ['?structural_type=cyclic', [TOUR]],
    ['?semantic_type=unclassified', [BUDGET]],
    ['?semantic_type=news', [ELECTION]],
    ['?semantic_type=lifestyle', []],
    [`?topic_id=${TOPIC_SPORT}&min_articles=0`, [TOUR, FINALS]],
    [`?topic_id=${TOPIC_POLITICS}&state=hot`, [ELECTION]],
    [`?theme_id=${THEME_NEWS}&min_articles=0`, [ELECTION, BUDGET, TOUR, FINALS]],
    [`?theme_id=${THEME_EMPTY}&min_articles=0`, []],
    [`?theme_id=${UNKNOWN}`, []],
    [`?theme_id=${TOPIC_SPORT}`, []],
    [`?theme_id=${THEME_NEWS}&topic_id=${TOPIC_SPORT}`, [TOUR]],
  ])('%s', async (query, expected) => {
    const reply = await get(`/v1/trends${query}`);
    expect(reply.status, show(reply)).toBe(200);
    expect(ids(reply)).toEqual(expected);
    expect(reply.body.total).toBe(expected.length);
  });

  it('pages with an exact total', async () => {
    const reply = await get('/v1/trends?limit=1&offset=1&min_articles=0');
    expect(ids(reply)).toEqual([BUDGET]);
    expect(reply.body).toMatchObject({ total: 4, limit: 1, offset: 1 });
    expect(ids(await get('/v1/trends?offset=10'))).toEqual([]);
  });
});

describe('GET /v1/trends/{trend_id}', () => {
  it("detail: the sparkline and features are computed from the assignments, not the line's constants", async () => {
    const reply = await get(`/v1/trends/${ELECTION}`);
    expect(reply.status, show(reply)).toBe(200);
    expect(TrendDetailSchema.safeParse(reply.body).success).toBe(true);
    const daily: number[] = reply.body.daily_counts_180d;
    expect(daily).toHaveLength(180);
    // Today (11-20) is last; 11-19 holds two; 06-01 is 172 days back; 05-01 falls outside.
    expect([daily[179], daily[178], daily[174], daily[7]]).toEqual([1, 2, 1, 1]);
    expect(daily.reduce((a, b) => a + b, 0)).toBe(5);
    const { acf_30, acf_90, ...rest } = reply.body.features;
    expect(rest).toEqual({
      days_active: 5,
      total_articles: 6,
      slope_14d: 0.0835,
      cv_30d: 3.2016,
      current_share_7d: 0.6667,
      peak_day_ago: 1,
      first_48h_share: 0.1667,
      acf_365: null,
    });
    // acf_30/acf_90 over the 180-day zero-filled sparkline, against a naive computation; lag 365 needs 730 days.
    const naiveAcf = (lag: number) => {
      const m = daily.reduce((a, b) => a + b, 0) / daily.length;
      const den = daily.reduce((a, x) => a + (x - m) ** 2, 0);
      let num = 0;
      for (let i = lag; i < daily.length; i++) num += (daily[i] - m) * (daily[i - lag] - m);
      return Math.round((num / den) * 1e4) / 1e4;
    };
    expect(acf_30).toBe(naiveAcf(30));
    expect(acf_90).toBe(naiveAcf(90));
    expect(reply.body).toMatchObject({
      created_at: '2026-01-01T00:00:00+00:00',
      updated_at: '2026-11-01T00:00:00+00:00',
      peak_date: '2026-11-19',
    });
  });

  it('a trend without articles: zero features and acf, null peak and acf_365', async () => {
    const reply = await get(`/v1/trends/${FINALS}`);
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.features).toEqual({
      days_active: 0,
      total_articles: 0,
      slope_14d: 0,
      cv_30d: 0,
      current_share_7d: 0,
      peak_day_ago: null,
      first_48h_share: 0,
      acf_30: 0,
      acf_90: 0,
      acf_365: null,
    });
    expect(reply.body.daily_counts_180d).toEqual(new Array(180).fill(0));
    expect(reply.body).toMatchObject({ first_seen_at: null, last_article_at: null, peak_date: null, article_count: 0 });
  });

  it('features follow the clock: a day later the series shifts', async () => {
    const reply = await world.call(`/v1/trends/${BUDGET}`, { key: internal, env: { NOW: '2026-11-21T00:30:00Z' } });
    expect(reply.body.daily_counts_180d.slice(-7)).toEqual([1, 0, 0, 2, 0, 0, 0]);
    expect(reply.body.features).toMatchObject({ peak_day_ago: 3, days_active: 2, total_articles: 3, current_share_7d: 1 });
  });

  it('404 for an unknown id, 422 for a malformed one', async () => {
    const unknown = await get(`/v1/trends/${UNKNOWN}`);
    expect(unknown.status, show(unknown)).toBe(404);
    expect(unknown.body).toEqual({ detail: `Trend '${UNKNOWN}' not found` });
    const bad = await get('/v1/trends/not-a-uuid');
    expect(bad.status, show(bad)).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['path', 'trend_id']);
  });
});

describe('GET /v1/trends/{trend_id}/articles', () => {
  const articles = (query = '', key = internal, id = ELECTION) => get(`/v1/trends/${id}/articles${query}`, key);
  const articleIds = (reply: { body: any }) => reply.body.articles.map((a: any) => a.id);

  it('first_seen_at descending by default, exact fields and total', async () => {
    const reply = await articles();
    expect(reply.status, show(reply)).toBe(200);
    expect(TrendArticlesSchema.safeParse(reply.body).success).toBe(true);
    expect(articleIds(reply)).toEqual([1, 3, 2, 4, 5, 6].map(article));
    expect(reply.body).toMatchObject({ trend_id: ELECTION, total: 6, limit: 50, offset: 0 });
    expect(reply.body.articles[0]).toEqual({
      id: article(1),
      url: 'https://news1.example.com/story/1',
      cabinet_url: `https://app.example.com/article/${article(1)}`,
      title: 'Story 1',
      title_en: 'Story 1 (en)',
      domain: 'news1.example.com',
      publisher: 'News 1',
      language: 'en',
      published_at: '2026-11-20T09:00:00+00:00',
      first_seen_at: '2026-11-20T10:00:00+00:00',
      summary_en: 'Summary 1 (en)',
      image_url: 'https://news1.example.com/1.jpg',
      country_code: 'US',
      assignment_method: 'embedding',
      assignment_score: 0.9,
      trend_role: 'F2_pile_on',
    });
    // Seen in GB and US in the same hour: the first market by code.
    expect(reply.body.articles[2]).toMatchObject({ id: article(2), country_code: 'GB', title_en: null, summary_en: null });
  });

  it.each([
    ['?sort_order=asc', [6, 5, 4, 2, 3, 1]],
    ['?sort_by=published_at&sort_order=asc', [6, 5, 4, 2, 1, 3]],
    ['?sort_by=published_at', [1, 2, 4, 5, 6, 3]],
    ['?sort_by=assignment_score', [5, 1, 3, 2, 4, 6]],
    ['?sort_by=assignment_score&sort_order=asc', [6, 4, 2, 3, 1, 5]],
    ['?role=F1_trigger', [2, 6]],
    ['?role=F3_long_tail', [4]],
    ['?role=F5_one_off&sort_order=asc', [5]],
    ['?limit=2&offset=1', [3, 2]],
  ])('%s', async (query, expected) => {
    const reply = await articles(query);
    expect(reply.status, show(reply)).toBe(200);
    expect(articleIds(reply)).toEqual(expected.map(article));
  });

  it('total counts the filter, not the page', async () => {
    expect((await articles('?role=F1_trigger&limit=1')).body).toMatchObject({ total: 2, limit: 1 });
  });

  it('restricted keys see only articles of their countries; plan-limited keys only their categories', async () => {
    const us = await articles('', usOnly.key);
    expect(articleIds(us)).toEqual([1, 2, 5, 6].map(article));
    expect(us.body.total).toBe(4);
    expect(us.body.articles[1]).toMatchObject({ id: article(2), country_code: 'US' });
    const sports = await articles('', sportsPlan.key);
    expect(articleIds(sports)).toEqual([article(3)]);
    expect(sports.body.total).toBe(1);
  });

  it.each([
    ['?role=F4_other', 'role', 'enum'],
    ['?role=f1_trigger', 'role', 'enum'],
    ['?sort_by=title', 'sort_by', 'enum'],
    ['?sort_order=up', 'sort_order', 'enum'],
    ['?limit=0', 'limit', 'greater_than_equal'],
    ['?limit=201', 'limit', 'less_than_equal'],
    ['?offset=-1', 'offset', 'greater_than_equal'],
  ])('422 %s', async (query, param, type) => {
    const reply = await articles(query);
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail[0]).toMatchObject({ loc: ['query', param], type });
  });

  it('404 for an unknown trend', async () => {
    const reply = await articles('', internal, UNKNOWN);
    expect(reply.status, show(reply)).toBe(404);
    expect(reply.body).toEqual({ detail: `Trend '${UNKNOWN}' not found` });
  });
});

describe('genealogy: /parents and /children', () => {
  it("edges with the spec's fields, strongest first", async () => {
    const children = await get(`/v1/trends/${ELECTION}/children`);
    expect(children.status, show(children)).toBe(200);
    expect(ChildrenSchema.safeParse(children.body).success).toBe(true);
    expect(children.body).toEqual({
      data_as_of: expect.any(String),
      trend_id: ELECTION,
      children: [
        {
          child_id: BUDGET,
          child_label: 'Budget',
          child_state: 'decayed',
          child_structural_type: 'evergreen',
          relation_type: 'spinoff',
          strength: 0.8,
          established_at: '2026-11-18T12:00:00+00:00',
        },
        {
          child_id: FINALS,
          child_label: 'Finals',
          child_state: 'emerging',
          child_structural_type: 'unknown',
          relation_type: 'follow_up',
          strength: 0.6,
          established_at: '2026-11-19T12:00:00+00:00',
        },
      ],
    });
    const parents = await get(`/v1/trends/${ELECTION}/parents`);
    expect(ParentsSchema.safeParse(parents.body).success).toBe(true);
    expect(parents.body).toEqual({
      data_as_of: expect.any(String),
      trend_id: ELECTION,
      parents: [
        {
          parent_id: TOUR,
          parent_label: 'Tour',
          parent_state: 'persistent',
          parent_structural_type: 'cyclic',
          relation_type: 'related',
          strength: 0.4,
          established_at: '2026-11-18T13:00:00+00:00',
        },
      ],
    });
  });

  it('symmetric: every child edge is a parent edge of the child, and back', async () => {
    for (const id of [ELECTION, BUDGET, TOUR, FINALS]) {
      for (const edge of (await get(`/v1/trends/${id}/children`)).body.children) {
        const back = (await get(`/v1/trends/${edge.child_id}/parents`)).body.parents;
        expect(back).toContainEqual({
          parent_id: id,
          parent_label: expect.any(String),
          parent_state: expect.any(String),
          parent_structural_type: expect.any(String),
          relation_type: edge.relation_type,
          strength: edge.strength,
          established_at: edge.established_at,
        });
      }
      for (const edge of (await get(`/v1/trends/${id}/parents`)).body.parents) {
        const forth = (await get(`/v1/trends/${edge.parent_id}/children`)).body.children.map((e: any) => e.child_id);
        expect(forth).toContain(id);
      }
    }
  });

  it('edges to trends the key may not see are left out; 404 for unknown and invisible trends', async () => {
    expect((await get(`/v1/trends/${ELECTION}/parents`, full.key)).body.parents).toEqual([]);
    expect((await get(`/v1/trends/${ELECTION}/children`, usOnly.key)).body.children.map((e: any) => e.child_id)).toEqual([FINALS]);
    for (const side of ['parents', 'children']) {
      const unknown = await get(`/v1/trends/${UNKNOWN}/${side}`);
      expect(unknown.status, show(unknown)).toBe(404);
      const hidden = await get(`/v1/trends/${TOUR}/${side}`, full.key);
      expect(hidden.status, show(hidden)).toBe(404);
      expect(hidden.body).toEqual({ detail: `Trend '${TOUR}' not found` });
    }
  });
});

describe('422 on the list', () => {
  it.each([
    ['?state=booming', 'state', 'enum'],
    ['?structural_type=linear', 'structural_type', 'enum'],
    ['?semantic_type=sports', 'semantic_type', 'enum'],
    ['?min_articles=-1', 'min_articles', 'greater_than_equal'],
    ['?min_articles=100001', 'min_articles', 'less_than_equal'],
    ['?min_articles=two', 'min_articles', 'number_type'],
    ['?sort_by=label', 'sort_by', 'enum'],
    ['?sort_order=sideways', 'sort_order', 'enum'],
    ['?limit=0', 'limit', 'greater_than_equal'],
    ['?limit=201', 'limit', 'less_than_equal'],
    ['?offset=-5', 'offset', 'greater_than_equal'],
    ['?topic_id=politics', 'topic_id', 'uuid_parsing'],
    ['?theme_id=1', 'theme_id', 'uuid_parsing'],
  ])('%s', async (query, param, type) => {
    const reply = await get(`/v1/trends${query}`);
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail[0]).toMatchObject({ loc: ['query', param], type });
  });
});

describe('region gate (security)', () => {
  it('lists and totals count only visible trends', async () => {
    expect(ids(await get('/v1/trends', full.key))).toEqual([ELECTION, BUDGET]);
    const us = await get('/v1/trends?min_articles=0', usOnly.key);
    expect(ids(us)).toEqual([ELECTION, FINALS]);
    expect(us.body.total).toBe(2);
  });

  it('an invisible trend answers exactly like an unknown id on every route', async () => {
    for (const suffix of ['', '/articles', '/parents', '/children']) {
      const hidden = await get(`/v1/trends/${BUDGET}${suffix}`, usOnly.key);
      const unknown = await get(`/v1/trends/${UNKNOWN}${suffix}`, usOnly.key);
      expect(hidden.status, show(hidden)).toBe(404);
      expect(unknown.status).toBe(404);
      expect(hidden.body.detail.replace(BUDGET, 'X')).toBe(unknown.body.detail.replace(UNKNOWN, 'X'));
    }
  });

  it('401 without a key on every route', async () => {
    for (const path of [
      '/v1/trends',
      `/v1/trends/${ELECTION}`,
      `/v1/trends/${ELECTION}/articles`,
      `/v1/trends/${ELECTION}/parents`,
      `/v1/trends/${ELECTION}/children`,
    ]) {
      const reply = await world.call(path);
      expect(reply.status, `${path} ${show(reply)}`).toBe(401);
    }
  });
});

describe('path ids', () => {
  it('upper-case hex names the same trend and is echoed lower-case', async () => {
    const reply = await get(`/v1/trends/${ELECTION.toUpperCase()}/articles?limit=1`);
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.trend_id).toBe(ELECTION);
  });
});
