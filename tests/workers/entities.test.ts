// Entities area: /v1/entities, /trending, /{entity_name}, /{entity_name}/articles.
import { beforeAll, describe, expect, it } from 'vitest';
import { EntityArticlesSchema, EntityDetailSchema, EntityListSchema, TrendingListSchema } from '../../functions/entities/schemas';
import { A1, A2, A3, A4, entityRecords, NOW, TAYLOR } from '../fixtures/entities';
import { seed } from '../helpers/seed';
import { createWorld, show, type Tenant, type World } from '../helpers/world';

let world: World;
let full: string;
let us: Tenant;
let other: Tenant;

beforeAll(async () => {
  world = await createWorld('entities');
  world.setNow(NOW);
  await seed(world, entityRecords());
  full = await world.internalKey();
  us = await world.tenant({ countries: ['US', 'GB'] }, { countries: ['US'] });
  other = await world.tenant({ countries: ['FR'] });
}, 60_000);

const names = (reply: { body: any }) => reply.body.entities.map((e: any) => e.normalized_name);

describe('GET /v1/entities (happy)', () => {
  it('one entry per normalized name, best occurrence kept, sorted by unified_score', async () => {
    const reply = await world.call('/v1/entities', { key: full });
    expect(reply.status, show(reply)).toBe(200);
    expect(EntityListSchema.safeParse(reply.body).success).toBe(true);
    expect(names(reply)).toEqual(['taylor swift', 'nova systems', 'chloé dubois', '100% pure_co']);
    expect(reply.body).toMatchObject({ total: 4, limit: 50, offset: 0 });
    expect(reply.body.entities[0]).toEqual({
      name: 'Taylor Swift',
      normalized_name: 'taylor swift',
      unified_score: 0.95,
      embedding_similarity: 0.7,
      source: 'kg',
      entity_types: TAYLOR.entity_types,
      wikipedia_url: TAYLOR.wikipedia_url,
      url_id: A2,
      kg: { id: TAYLOR.kg_id, name: TAYLOR.kg_name, description: TAYLOR.kg_description, image_url: TAYLOR.kg_image_url },
    });
    expect(reply.body.entities[3].kg).toEqual({ id: null, name: null, description: null, image_url: null });
  });

  it.each([
    ['swift', ['taylor swift']],
    ['SWIFT', ['taylor swift']],
    ['chloe', ['chloé dubois']],
    ['CHLOÉ', ['chloé dubois']],
    ['100%', ['100% pure_co']],
    ['%', ['100% pure_co']],
    ['e_c', ['100% pure_co']],
    ['r_s', []],
    ['_', ['100% pure_co']],
    ['zzz', []],
  ])('search=%s is a case- and accent-insensitive literal substring', async (search, expected) => {
    const reply = await world.call(`/v1/entities?search=${encodeURIComponent(search)}`, { key: full });
    expect(reply.status, show(reply)).toBe(200);
    expect(names(reply)).toEqual(expected);
    expect(reply.body.total).toBe(expected.length);
  });

  it('entity_type is an exact member of entity_types', async () => {
    expect(names(await world.call('/v1/entities?entity_type=Organization', { key: full }))).toEqual(['nova systems']);
    expect(names(await world.call('/v1/entities?entity_type=Person', { key: full }))).toEqual(['taylor swift', 'chloé dubois']);
    expect(names(await world.call('/v1/entities?entity_type=person', { key: full }))).toEqual(['100% pure_co']);
    expect(names(await world.call('/v1/entities?entity_type=Pers', { key: full }))).toEqual([]);
  });

  it('min_score, limit and offset; total counts every match', async () => {
    const reply = await world.call('/v1/entities?min_score=0.8&limit=1&offset=1', { key: full });
    expect(names(reply)).toEqual(['nova systems']);
    expect(reply.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(names(await world.call('/v1/entities?offset=10', { key: full }))).toEqual([]);
  });
});

describe('GET /v1/entities/trending (happy)', () => {
  const trending = (query: string, key = full) => world.call(`/v1/entities/trending?${query}`, { key });

  it('ranks by mentions in the period, with the top article', async () => {
    const reply = await trending('region=us');
    expect(reply.status, show(reply)).toBe(200);
    expect(TrendingListSchema.safeParse(reply.body).success).toBe(true);
    expect(reply.body).toEqual({
      region: 'US',
      period: '24h',
      data_as_of: expect.any(String),
      trending_entities: [
        {
          name: 'Nova Systems',
          kg_id: null,
          kg_name: null,
          entity_types: ['Organization', 'Corporation'],
          mentions_in_period: 1,
          articles_in_period: 1,
          top_article: {
            url_id: A1,
            title: 'Tour dates announced',
            domain: 'us.example.com',
            cabinet_url: `https://app.example.com/article/${A1}`,
          },
        },
        {
          name: 'Taylor Swift',
          kg_id: TAYLOR.kg_id,
          kg_name: TAYLOR.kg_name,
          entity_types: TAYLOR.entity_types,
          mentions_in_period: 1,
          articles_in_period: 1,
          top_article: {
            url_id: A1,
            title: 'Tour dates announced',
            domain: 'us.example.com',
            cabinet_url: `https://app.example.com/article/${A1}`,
          },
        },
        // A3 appeared in the US 50 hours ago (English): its Spanish profile is a new mention, not a new article.
        {
          name: 'Chloé Dubois',
          kg_id: null,
          kg_name: null,
          entity_types: ['Person'],
          mentions_in_period: 1,
          articles_in_period: 0,
          top_article: { url_id: A3, title: 'Entrevista', domain: 'es.example.com', cabinet_url: `https://app.example.com/article/${A3}` },
        },
      ],
    });
  });

  it('lang counts the profiles of that language only', async () => {
    const es = await trending('region=US&lang=ES');
    expect(es.body.trending_entities.map((t: any) => [t.name, t.mentions_in_period, t.articles_in_period])).toEqual([
      ['Chloé Dubois', 1, 1],
    ]);
    expect((await trending('region=US&lang=de')).body.trending_entities).toEqual([]);
  });

  it.each([
    ['1h', 'FR', [['100% Pure_Co', 1, 1]]],
    [
      '6h',
      'DE',
      [
        ['Nova Systems', 1, 1],
        ['Taylor Swift', 1, 1],
      ],
    ],
    ['24h', 'GB', []],
    ['7d', 'GB', [['Taylor Swift', 1, 1]]],
    [
      '7d',
      'US',
      [
        ['Chloé Dubois', 2, 1],
        ['Nova Systems', 1, 1],
        ['Taylor Swift', 1, 1],
      ],
    ],
  ])('period=%s in %s', async (period, region, expected) => {
    const reply = await trending(`region=${region}&period=${period}`);
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.period).toBe(period);
    expect(reply.body.trending_entities.map((t: any) => [t.name, t.mentions_in_period, t.articles_in_period])).toEqual(expected);
  });

  it('entity_type and limit', async () => {
    expect((await trending('region=US&period=7d&entity_type=Person')).body.trending_entities.map((t: any) => t.name)).toEqual([
      'Chloé Dubois',
      'Taylor Swift',
    ]);
    expect((await trending('region=US&period=7d&limit=1')).body.trending_entities.map((t: any) => t.name)).toEqual(['Chloé Dubois']);
  });

  it('the window ends now: an hour later the 1h window is empty', async () => {
    world.setNow('2026-11-20T13:30:00.000Z');
    try {
      expect((await trending('region=FR&period=1h')).body.trending_entities).toEqual([]);
    } finally {
      world.setNow(NOW);
    }
  });
});

describe('GET /v1/entities/{entity_name} (happy)', () => {
  it.each(['Taylor%20Swift', 'taylor%20swift', '%20%20TAYLOR%20swift%20'])('%s matches by trimmed, lower-cased name', async (name) => {
    const reply = await world.call(`/v1/entities/${name}`, { key: full });
    expect(reply.status, show(reply)).toBe(200);
    expect(EntityDetailSchema.safeParse(reply.body).success).toBe(true);
    expect(reply.body).toEqual({
      data_as_of: expect.any(String),
      name: 'Taylor Swift',
      normalized_name: 'taylor swift',
      unified_score: 0.95,
      embedding_similarity: 0.7,
      source: 'kg',
      entity_types: TAYLOR.entity_types,
      wikipedia_url: TAYLOR.wikipedia_url,
      url_id: A2,
      kg_id: TAYLOR.kg_id,
      kg_name: TAYLOR.kg_name,
      kg_description: TAYLOR.kg_description,
      kg_image_url: TAYLOR.kg_image_url,
      articles_count: 3,
    });
  });

  it('names with reserved characters, URL-encoded', async () => {
    const reply = await world.call(`/v1/entities/${encodeURIComponent('100% Pure_Co')}`, { key: full });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.articles_count).toBe(1);
  });
});

describe('GET /v1/entities/{entity_name}/articles (happy)', () => {
  it("sorted by the entity's score in each article, exact total", async () => {
    const reply = await world.call('/v1/entities/taylor%20swift/articles', { key: full });
    expect(reply.status, show(reply)).toBe(200);
    expect(EntityArticlesSchema.safeParse(reply.body).success).toBe(true);
    expect(reply.body.entity_name).toBe('taylor swift');
    expect(reply.body.total).toBe(3);
    expect(reply.body.articles.map((a: any) => [a.url_id, a.unified_score])).toEqual([
      [A2, 0.95],
      [A1, 0.92],
      [A4, 0.5],
    ]);
    expect(reply.body.articles[0]).toMatchObject({
      url: 'https://gb.example.co.uk/a/02',
      title: 'London stadium sold out',
      domain: 'gb.example.co.uk',
      published_at: '2026-11-19T06:00:00+00:00',
      embedding_similarity: 0.7,
      source: 'kg',
      summary: 'London stadium sold out summary',
    });
  });

  it('limit and offset page through; total stays exact', async () => {
    const reply = await world.call('/v1/entities/Taylor%20Swift/articles?limit=1&offset=1', { key: full });
    expect(reply.body.articles.map((a: any) => a.url_id)).toEqual([A1]);
    expect(reply.body.total).toBe(3);
  });
});

describe('entities (errors)', () => {
  it.each([
    '/v1/entities?limit=0',
    '/v1/entities?limit=201',
    '/v1/entities?offset=-1',
    '/v1/entities?min_score=-0.1',
    '/v1/entities?min_score=abc',
    '/v1/entities/trending',
    '/v1/entities/trending?region=USA',
    '/v1/entities/trending?region=US&period=2h',
    '/v1/entities/trending?region=US&limit=0',
    '/v1/entities/trending?region=US&limit=101',
    '/v1/entities/trending?region=US&lang=english!',
    '/v1/entities/taylor%20swift/articles?limit=201',
    '/v1/entities/taylor%20swift/articles?offset=x',
  ])('%s -> 422 with the validation shape', async (path) => {
    const reply = await world.call(path, { key: full });
    expect(reply.status, show(reply)).toBe(422);
    expect(Array.isArray(reply.body.detail)).toBe(true);
    for (const issue of reply.body.detail)
      expect(issue).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
  });

  it.each(['/v1/entities/nobody', '/v1/entities/nobody/articles', '/v1/entities/%20/articles'])('%s -> 404', async (path) => {
    const reply = await world.call(path, { key: full });
    expect(reply.status, show(reply)).toBe(404);
    expect(typeof reply.body.detail).toBe('string');
  });

  it('trending for a region without data is empty, not an error', async () => {
    const reply = await world.call('/v1/entities/trending?region=JP', { key: full });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.trending_entities).toEqual([]);
  });
});

describe('entities (security)', () => {
  it.each(['/v1/entities', '/v1/entities/trending?region=US', '/v1/entities/taylor%20swift', '/v1/entities/taylor%20swift/articles'])(
    '%s without a key -> 401; a bearer key works',
    async (path) => {
      const missing = await world.call(path);
      expect(missing.status, show(missing)).toBe(401);
      expect(typeof missing.body.detail).toBe('string');
      const bearer = await world.call(path, { bearer: full });
      expect(bearer.status, show(bearer)).toBe(200);
    },
  );

  it("a restricted key lists only entities on its countries' articles, with their best occurrence there", async () => {
    const reply = await world.call('/v1/entities', { key: us.key });
    expect(reply.body.entities.map((e: any) => [e.normalized_name, e.unified_score, e.url_id])).toEqual([
      ['taylor swift', 0.92, A1],
      ['chloé dubois', 0.7, A3],
      ['nova systems', 0.4, A1],
    ]);
    expect(reply.body.total).toBe(3);
  });

  it('a restricted key: counts and articles of its countries only; invisible entities are 404', async () => {
    const detail = await world.call('/v1/entities/Taylor%20Swift', { key: us.key });
    expect(detail.body).toMatchObject({ unified_score: 0.92, url_id: A1, articles_count: 1 });
    const articles = await world.call('/v1/entities/Taylor%20Swift/articles', { key: us.key });
    expect(articles.body.articles.map((a: any) => a.url_id)).toEqual([A1]);
    expect(articles.body.total).toBe(1);
    for (const path of ['/v1/entities/100%25%20pure_co', '/v1/entities/100%25%20pure_co/articles']) {
      const reply = await world.call(path, { key: us.key });
      expect(reply.status, show(reply)).toBe(404);
    }
    const fr = await world.call('/v1/entities/Taylor%20Swift', { key: other.key });
    expect(fr.status, show(fr)).toBe(404);
  });

  it('trending in a region outside a restricted key -> 403 naming it', async () => {
    const reply = await world.call('/v1/entities/trending?region=gb', { key: us.key });
    expect(reply.status, show(reply)).toBe(403);
    expect(reply.body.detail).toContain("'GB'");
    expect((await world.call('/v1/entities/trending?region=us', { key: us.key })).status).toBe(200);
  });

  it('a category-limited plan sees no entity without an occurrence in its categories (404 like an unknown name)', async () => {
    const start = await world.tenant({ plan: 'start', categories: ['/Sports'] });
    const detail = await world.call('/v1/entities/Taylor%20Swift', { key: start.key });
    expect(detail.status, show(detail)).toBe(404);
    const articles = await world.call('/v1/entities/Taylor%20Swift/articles', { key: start.key });
    expect(articles.status, show(articles)).toBe(404);
    // Its own category: counted and listed as before.
    const news = await world.tenant({ plan: 'start', categories: ['/News'] });
    expect((await world.call('/v1/entities/Taylor%20Swift', { key: news.key })).body.articles_count).toBe(3);
  });
});
