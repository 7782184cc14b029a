// Plan categories apply to every entity read that names articles
// (docs/SECURITY.md "Plan categories in entity reads"). A project limited to /Sports asked for trending
// entities, entity detail and the entity list and got the titles and ids of /News articles; now it sees
// only mentions on its categories' articles.
import { beforeAll, describe, expect, it } from 'vitest';
import { seed } from '../helpers/seed';
import { createWorld, show, type Tenant, type World } from '../helpers/world';

const NOW = '2026-11-20T12:30:00.000Z';
const hour = (hoursAgo: number) => new Date(Date.parse('2026-11-20T12:00:00Z') - hoursAgo * 3_600_000).toISOString();
const SPORTS_1 = '5e5e5e5e-0000-4000-8000-000000000001';
const NEWS_1 = '5e5e5e5e-0000-4000-8000-000000000002';
const NEWS_2 = '5e5e5e5e-0000-4000-8000-000000000003';

const mention = (name: string, unified_score: number) => ({
  name,
  type: 'person',
  mentions: 1,
  unified_score,
  embedding_similarity: 0.5,
  source: 'ner',
});

function article(id: string, category: string, title: string, hoursAgo: number, entities: object[]) {
  return {
    type: 'article',
    id,
    url: `https://news.example.com/a/${id.slice(-2)}`,
    domain: 'news.example.com',
    publisher: 'news',
    title,
    summary: `${title} summary`,
    body: `${title} body`,
    content_language: 'en',
    date_published: hour(hoursAgo),
    date_modified: hour(hoursAgo),
    meta: { meta_title: title, meta_description: title, headline: title, section: 'News' },
    enrichment: { actors: [], topic: [], format_group: 'article', format_type: 'news', entities: {} },
    rss_feeds: null,
    images: [],
    markdown_content: null,
    first_seen_at: hour(hoursAgo),
    refreshed_at: hour(hoursAgo),
    categories: [{ name: category, confidence: 0.9 }],
    entities,
  };
}

const seen = (url_id: string, hoursAgo: number, language = 'en') => ({
  type: 'observation',
  url_id,
  country: 'US',
  language,
  hour: hour(hoursAgo),
  impressions: 100,
  position: 2,
});

let world: World;
let internal: string;
let sports: Tenant;
let both: Tenant;

beforeAll(async () => {
  world = await createWorld('plan_categories_entities');
  world.setNow(NOW);
  await seed(world, [
    { type: 'country', alpha_2: 'US', alpha_3: 'USA', name: 'US', region: 'R', sub_region: 'S', languages: ['en', 'es'] },
    article(SPORTS_1, '/Sports/Soccer', 'Cup final tonight', 2, [mention('Zed Star', 0.6)]),
    article(NEWS_1, '/News', 'Secret merger talks', 3, [mention('Zed Star', 0.9), mention('Board Member', 0.8)]),
    article(NEWS_2, '/News/Politics', 'Cabinet reshuffle', 1, [mention('Board Member', 0.7)]),
    seen(SPORTS_1, 2),
    seen(SPORTS_1, 1, 'es'),
    seen(NEWS_1, 3),
    seen(NEWS_2, 1),
  ]);
  internal = await world.internalKey();
  sports = await world.tenant({ plan: 'start', countries: ['US'], categories: ['/Sports'] });
  both = await world.tenant({ plan: 'grow', countries: ['US'], categories: ['/News', '/Sports'] });
}, 60_000);

describe('a /Sports-limited project reading entities', () => {
  it("/v1/entities/trending ranks by its categories' mentions; top_article is never a /News article", async () => {
    const all = await world.call('/v1/entities/trending?region=us&period=24h', { key: internal });
    expect(all.body.trending_entities.map((e: any) => [e.name, e.mentions_in_period, e.top_article.url_id])).toEqual([
      ['Zed Star', 3, NEWS_1],
      ['Board Member', 2, NEWS_1],
    ]);
    const reply = await world.call('/v1/entities/trending?region=us&period=24h', { key: sports.key });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.trending_entities).toEqual([
      expect.objectContaining({
        name: 'Zed Star',
        mentions_in_period: 2,
        articles_in_period: 1,
        top_article: expect.objectContaining({ url_id: SPORTS_1, title: 'Cup final tonight' }),
      }),
    ]);
    expect(reply.text).not.toContain('Secret merger talks');
    const english = await world.call('/v1/entities/trending?region=us&period=24h&lang=en', { key: sports.key });
    expect(english.body.trending_entities.map((e: any) => [e.mentions_in_period, e.articles_in_period])).toEqual([[1, 1]]);
  });

  it('a plan holding every category of the data ranks exactly as the roll-ups do', async () => {
    for (const query of ['period=24h', 'period=24h&lang=es', 'period=1h', 'period=7d&entity_type=person']) {
      const all = await world.call(`/v1/entities/trending?region=us&${query}`, { key: internal });
      const planned = await world.call(`/v1/entities/trending?region=us&${query}`, { key: both.key });
      expect(planned.status, show(planned)).toBe(200);
      expect(planned.body.trending_entities, query).toEqual(all.body.trending_entities);
    }
  });

  it('entity detail and the entity list name only an in-category occurrence; an entity with none is 404 like an unknown one', async () => {
    expect((await world.call('/v1/entities/zed%20star', { key: internal })).body.url_id).toBe(NEWS_1);
    const detail = await world.call('/v1/entities/zed%20star', { key: sports.key });
    expect(detail.status, show(detail)).toBe(200);
    expect(detail.body).toMatchObject({ url_id: SPORTS_1, unified_score: 0.6, articles_count: 1 });
    const list = await world.call('/v1/entities', { key: sports.key });
    expect(list.body.entities.map((e: any) => [e.normalized_name, e.url_id])).toEqual([['zed star', SPORTS_1]]);
    expect(list.body.total).toBe(1);
    for (const path of ['/v1/entities/board%20member', '/v1/entities/board%20member/articles']) {
      const hidden = await world.call(path, { key: sports.key });
      const unknown = await world.call(path.replace('board%20member', 'nobody'), { key: sports.key });
      expect(hidden.status, show(hidden)).toBe(404);
      expect(hidden.body.detail.replace('board member', 'X')).toBe(unknown.body.detail.replace('nobody', 'X'));
    }
  });

  it("/v1/entities/{name}/articles lists only its categories' articles", async () => {
    const reply = await world.call('/v1/entities/zed%20star/articles', { key: sports.key });
    expect(reply.body.articles.map((a: any) => a.url_id)).toEqual([SPORTS_1]);
    expect(reply.body.total).toBe(1);
  });
});
