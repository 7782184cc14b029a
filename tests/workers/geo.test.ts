// Geo area: /v1/geo/* and its identical twin /v2/geo/*.
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../shared/db/raw';
import { geoRecords, NOW, TAYLOR } from '../fixtures/geo';
import { createWorld, show, type Tenant, type World } from '../helpers/world';
import { seed } from '../helpers/seed';

let world: World;
let full: Tenant;
let restricted: Tenant;
let internal: string;

beforeAll(async () => {
  world = await createWorld('geo');
  world.setNow(NOW);
  await seed(world, geoRecords());
  full = await world.tenant({ countries: ['US', 'GB', 'DE', 'FR'] });
  restricted = await world.tenant({ countries: ['US', 'GB', 'DE', 'FR'] }, { countries: ['US'] });
  internal = await world.internalKey();
});

/** Naive reference: straight from raw observations, no roll-ups. */
async function reference<T>(sql: string, params: unknown[]): Promise<T> {
  const [row] = await queryRows<Record<string, T>>(world.db, sql, params);
  return Object.values(row)[0];
}

describe('GET /v1/geo/regions (happy)', () => {
  it('lists regions with profiles, by name, filtered to the key', async () => {
    const reply = await world.call('/v1/geo/regions', { key: full.key });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.regions.map((r: any) => r.alpha_2)).toEqual(['FR', 'DE', 'GB', 'US']);
    expect(reply.body.total).toBe(4);
    const us = reply.body.regions.find((r: any) => r.alpha_2 === 'US');
    expect(us).toEqual({
      alpha_2: 'US',
      name: 'United States',
      region: 'Americas',
      sub_region: 'Northern America',
      languages: ['en', 'es'],
      cities_count: 2,
      profiles_count: 3,
      is_active: true,
    });
    expect(reply.body.regions.find((r: any) => r.alpha_2 === 'FR').is_active).toBe(false);
  });

  it('leaves out markets without profiles even for an unrestricted key', async () => {
    const reply = await world.call('/v1/geo/regions', { key: internal });
    expect(reply.body.regions.map((r: any) => r.alpha_2)).toEqual(['FR', 'DE', 'GB', 'US']);
  });

  it('active_only drops regions without an active profile', async () => {
    const reply = await world.call('/v1/geo/regions?active_only=true', { key: full.key });
    expect(reply.body.regions.map((r: any) => r.alpha_2)).toEqual(['DE', 'GB', 'US']);
    expect(reply.body.total).toBe(3);
  });

  it('with_stats attaches population and daily impressions computed from observations', async () => {
    const reply = await world.call('/v1/geo/regions?with_stats=true', { key: full.key });
    expect(reply.status, show(reply)).toBe(200);
    for (const region of reply.body.regions) {
      if (region.alpha_2 === 'DE') {
        expect(region.stats).toBeUndefined();
        continue;
      }
      const expected = await reference<number>(
        `SELECT coalesce(round(sum(impressions) / 7.0), 0)::float8 FROM observations
         WHERE country = $1 AND hour >= date_trunc('day', $2::timestamptz) - interval '7 days' AND hour < date_trunc('day', $2::timestamptz)`,
        [region.alpha_2, NOW],
      );
      expect(region.stats.total_discover_impressions_per_day, region.alpha_2).toBe(expected);
    }
    const us = reply.body.regions.find((r: any) => r.alpha_2 === 'US');
    expect(us.stats).toMatchObject({ population: 335_000_000, internet_population: 301_500_000, mobile_chrome_population: 134_000_000 });
    expect(us.stats.total_discover_impressions_per_day).toBeGreaterThan(0);
  });

  it.each([TAYLOR.kg_id, 'taylor swift', '  Taylor Swift '])('entity=%s annotates activity in the window', async (entity) => {
    const reply = await world.call(`/v1/geo/regions?entity=${encodeURIComponent(entity)}&window=24h`, { key: full.key });
    expect(reply.status, show(reply)).toBe(200);
    const byCode = Object.fromEntries(reply.body.regions.map((r: any) => [r.alpha_2, r]));
    const expectedUs = await reference<number>(
      `SELECT sum(impressions)::float8 FROM observations o JOIN article_entities ae USING (url_id) JOIN entities e ON e.id = ae.entity_id
       WHERE e.kg_id = $1 AND o.country = 'US' AND o.hour >= $2::timestamptz - interval '24 hours' AND o.hour < $2::timestamptz`,
      [TAYLOR.kg_id, NOW],
    );
    expect(byCode.US).toMatchObject({ has_entity_activity: true, entity_impressions: expectedUs });
    expect(byCode.GB).toMatchObject({ has_entity_activity: true, entity_impressions: 40 });
    expect(byCode.DE).toMatchObject({ has_entity_activity: false, entity_impressions: 0 });
  });

  it('entity_only keeps only regions with activity; window=1h narrows it', async () => {
    const reply = await world.call(`/v1/geo/regions?entity=${TAYLOR.kg_id}&entity_only=true&window=1h`, { key: full.key });
    expect(reply.body.regions.map((r: any) => r.alpha_2)).toEqual(['US']);
    expect(reply.body.total).toBe(1);
    expect(reply.body.regions[0].entity_impressions).toBe(100); // only the 12:00 bucket starts inside [11:30, 12:30)
  });

  it('an unknown entity has no activity anywhere', async () => {
    const reply = await world.call('/v1/geo/regions?entity=nobody%20at%20all', { key: full.key });
    expect(reply.body.regions.every((r: any) => r.has_entity_activity === false && r.entity_impressions === 0)).toBe(true);
  });

  it('is served identically under /v2/geo', async () => {
    for (const path of [
      '/geo/regions?with_stats=true',
      '/geo/regions/us',
      '/geo/regions/US/cities',
      '/geo/languages?with_article_counts=true',
    ]) {
      const [v1, v2] = await Promise.all([world.call(`/v1${path}`, { key: full.key }), world.call(`/v2${path}`, { key: full.key })]);
      expect(v1.status, show(v1)).toBe(200);
      expect(v2.body).toEqual(v1.body);
    }
  });
});

describe('GET /v1/geo/regions/{alpha_2}', () => {
  it('returns the detail with totals equal to a naive count over observations', async () => {
    const reply = await world.call('/v1/geo/regions/us', { key: full.key });
    expect(reply.status, show(reply)).toBe(200);
    const profiles = `SELECT url_id, language, min(hour) AS first FROM observations WHERE country = 'US' AND impressions > 0 GROUP BY 1, 2`;
    const total = await reference<number>(`SELECT count(*)::int FROM (${profiles}) p`, []);
    const last24 = await reference<number>(
      `SELECT count(*)::int FROM (${profiles}) p WHERE first >= $1::timestamptz - interval '24 hours'`,
      [NOW],
    );
    const first = await reference<Date>(`SELECT min(first) FROM (${profiles}) p`, []);
    expect(reply.body).toMatchObject({
      alpha_2: 'US',
      alpha_3: 'USA',
      name: 'United States',
      languages: ['en', 'es'],
      total_articles: total,
      articles_last_24h: last24,
      first_data_at: new Date(first).toISOString().replace('.000Z', '+00:00'),
    });
    expect(total).toBe(2);
    expect(reply.body.cities).toEqual([
      { id: expect.any(Number), name: 'Austin', is_active: false },
      { id: expect.any(Number), name: 'Chicago', is_active: true },
    ]);
    expect(reply.body.stats).toMatchObject({ alpha_2: 'us', population: 335_000_000 });
  });

  it('gives null stats for a market without population data', async () => {
    const reply = await world.call('/v1/geo/regions/DE', { key: full.key });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.stats).toBeNull();
    expect(reply.body.articles_last_24h).toBe(1);
  });

  it('404 for a code no market has', async () => {
    const reply = await world.call('/v1/geo/regions/ZZ', { key: internal });
    expect(reply.status, show(reply)).toBe(404);
    expect(typeof reply.body.detail).toBe('string');
  });

  it('422 for a malformed code', async () => {
    const reply = await world.call('/v1/geo/regions/USA', { key: full.key });
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail[0]).toMatchObject({ loc: ['path', 'alpha_2'], type: expect.any(String), msg: expect.any(String) });
  });
});

describe('GET /v1/geo/regions/{alpha_2}/cities', () => {
  it('lists cities with profiles; active_only keeps active ones', async () => {
    const all = await world.call('/v1/geo/regions/US/cities', { key: full.key });
    expect(all.body).toEqual({
      data_as_of: expect.any(String),
      region: 'US',
      cities: [expect.objectContaining({ name: 'Austin' }), expect.objectContaining({ name: 'Chicago' })],
    });
    const active = await world.call('/v1/geo/regions/us/cities?active_only=1', { key: full.key });
    expect(active.body.cities.map((c: any) => c.name)).toEqual(['Chicago']);
  });

  it('a known market without profiles has an empty list', async () => {
    const reply = await world.call('/v1/geo/regions/JP/cities', { key: internal });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body).toEqual({ data_as_of: expect.any(String), region: 'JP', cities: [] });
  });
});

describe('GET /v1/geo/languages', () => {
  it('lists every language by code with the markets that speak it', async () => {
    const reply = await world.call('/v1/geo/languages', { key: restricted.key });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.languages.map((l: any) => l.code)).toEqual(['de', 'en', 'es', 'fr', 'ja']);
    expect(reply.body.languages[1]).toEqual({ code: 'en', name: 'English', regions: ['GB', 'US'] });
  });

  it('with_article_counts adds exact counts', async () => {
    const reply = await world.call('/v1/geo/languages?with_article_counts=true', { key: full.key });
    for (const language of reply.body.languages) {
      const expected = await reference<number>(
        `SELECT count(DISTINCT (url_id, country))::int FROM observations WHERE language = $1 AND impressions > 0`,
        [language.code],
      );
      expect(language.article_count, language.code).toBe(expected);
    }
  });
});

describe('geo errors', () => {
  it.each([
    ['/v1/geo/regions?window=2h', ['query', 'window'], 'enum'],
    ['/v1/geo/regions?active_only=maybe', ['query', 'active_only'], 'enum'],
    ['/v1/geo/languages?with_article_counts=yes', ['query', 'with_article_counts'], 'enum'],
  ])('%s -> 422 with loc %j', async (path, loc, type) => {
    const reply = await world.call(path, { key: full.key });
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail).toEqual([{ loc, msg: expect.any(String), type }]);
  });
});

describe('geo security', () => {
  it.each(['/v1/geo/regions', '/v2/geo/regions/US', '/v1/geo/regions/US/cities', '/v2/geo/languages'])('%s needs a key', async (path) => {
    const reply = await world.call(path);
    expect(reply.status, show(reply)).toBe(401);
    expect(reply.body.detail).toMatch(/X-API-Key|Bearer/);
    expect(reply.headers.get('www-authenticate')).toMatch(/Bearer/);
  });

  it('accepts the key as a bearer token and refuses it in the query string', async () => {
    expect((await world.call('/v1/geo/regions', { bearer: full.key })).status).toBe(200);
    const query = await world.call(`/v1/geo/regions?api_key=${full.key}`);
    expect(query.status, show(query)).toBe(401);
    expect(query.body.detail).toMatch(/query string/);
  });

  it('refuses an unknown key', async () => {
    const reply = await world.call('/v1/geo/regions', { key: 'dk_not_a_real_key' });
    expect(reply.status, show(reply)).toBe(401);
    expect(typeof reply.body.detail).toBe('string');
  });

  it('a restricted key sees only its countries and gets 403 naming the refused region', async () => {
    const list = await world.call('/v1/geo/regions', { key: restricted.key });
    expect(list.body.regions.map((r: any) => r.alpha_2)).toEqual(['US']);
    expect(list.body.total).toBe(1);
    for (const path of ['/v1/geo/regions/gb', '/v2/geo/regions/GB/cities']) {
      const reply = await world.call(path, { key: restricted.key });
      expect(reply.status, show(reply)).toBe(403);
      expect(reply.body.detail).toBe("Region 'GB' is not allowed for this API key. Allowed regions: US.");
    }
  });

  it('a project without the market cannot read it either', async () => {
    const reply = await world.call('/v1/geo/regions/JP', { key: full.key });
    expect(reply.status, show(reply)).toBe(403);
  });
});
