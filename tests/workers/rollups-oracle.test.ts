// The reference oracle: roll-up reads equal plain SQL over raw observations (no roll-ups) for
// random windows, markets, languages, grains and keys, after late data, duplicates, corrections
// and membership changes arriving in later batches.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../shared/db/raw';
import type { DimensionKind } from '../../shared/db/schema';
import { buckets, ceilHour, type Grain } from '../../shared/rollups/buckets';
import { distinctByKey, publicationsSeries, seriesByKey, type DimScope } from '../../shared/rollups/read';
import { rebuildRollups } from '../../shared/ingest/rebuild';
import { seed } from '../helpers/seed';
import { createWorld, type World } from '../helpers/world';

const BASE = Date.parse('2026-11-01T00:00:00Z');
const HOURS = 12 * 24;
const MARKETS = [['US', 'en'], ['US', 'es'], ['GB', 'en'], ['DE', 'de']] as const;
const ENTITIES = ['Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Edsger Dijkstra'];
const CATEGORIES = ['/News', '/News/Politics', '/Sports/Soccer', '/Tech'];
const DOMAINS = ['a.example.com', 'b.example.com', 'c.example.org'];
const TRENDS = ['1d6b2a00-0000-4000-8000-000000000001', '1d6b2a00-0000-4000-8000-000000000002'];

let world: World;
let keys: Record<DimensionKind, string[]>;

/** A deterministic pseudo-random stream (the test data must not change between runs). */
function lcg(seed: number) {
  let s = seed;
  return () => ((s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

const hourIso = (h: number) => new Date(BASE + h * 3_600_000).toISOString();
const urlId = (i: number) => `0a0a0a0a-0000-4000-8000-${String(i).padStart(12, '0')}`;

function article(i: number, rnd: () => number, entities: string[]) {
  const start = Math.floor(rnd() * (HOURS - 48));
  return {
    type: 'article', id: urlId(i), url: `https://${DOMAINS[i % 3]}/a/${i}`, domain: DOMAINS[i % 3], publisher: DOMAINS[i % 3],
    favicon_url: '', title: `Story ${i}`, summary: '', body: '', content_language: 'en',
    date_published: hourIso(start), date_modified: hourIso(start),
    meta: { meta_title: '', meta_description: '', headline: '', section: '' },
    enrichment: { actors: [], topic: [], format_group: 'article', format_type: 'news', entities: {} },
    rss_feeds: null, images: [], markdown_content: null, first_seen_at: hourIso(start), refreshed_at: hourIso(start),
    categories: [{ name: CATEGORIES[i % 4], confidence: 0.8 }, ...(i % 5 === 0 ? [{ name: CATEGORIES[(i + 1) % 4], confidence: 0.4 }] : [])],
    entities: entities.map((name) => ({ name, type: 'person', mentions: 1, unified_score: 0.5, embedding_similarity: 0.5, source: 'ner' })),
  };
}

function dataset() {
  const rnd = lcg(20_261_121);
  const batches: object[][] = [[], [], []];
  const countries = [['US', 'USA', ['en', 'es']], ['GB', 'GBR', ['en']], ['DE', 'DEU', ['de']]] as const;
  for (const [alpha_2, alpha_3, languages] of countries) {
    batches[0].push({ type: 'country', alpha_2, alpha_3, name: alpha_2, region: 'R', sub_region: 'S', languages });
  }
  for (let i = 0; i < 40; i++) {
    const entities = ENTITIES.filter((_, e) => (i + e) % 3 === 0);
    const art = article(i, rnd, entities);
    batches[0].push(art);
    const start = Math.floor((Date.parse(art.first_seen_at) - BASE) / 3_600_000);
    for (const [country, language] of MARKETS.filter((_, m) => (i + m) % 2 === 0 || m === i % 4)) {
      let hour = start + Math.floor(rnd() * 6);
      const life = 3 + Math.floor(rnd() * 40);
      for (let h = 0; h < life && hour < HOURS; h++, hour += rnd() < 0.15 ? 3 : 1) {
        const obs = { type: 'observation', url_id: art.id, country, language, hour: hourIso(hour), impressions: Math.floor(rnd() ** 3 * 500), position: 1 + Math.floor(rnd() * 20) };
        // Late data: a fifth of the hours arrive in a later batch.
        batches[rnd() < 0.2 ? 1 : 0].push(obs);
        // Corrections and duplicates in the last batch.
        if (rnd() < 0.1) batches[2].push({ ...obs, impressions: obs.impressions + 7, position: obs.position + 1 });
        if (rnd() < 0.05) batches[2].push(obs);
      }
    }
  }
  // Trend assignments arrive after their observations; one article changes its entities.
  batches[0].push(...TRENDS.map((id, t) => ({
    type: 'trend', id, label: `Trend ${t}`, label_en: `Trend ${t}`, label_ru: `Trend ${t}`, state: 'hot', structural_type: 'event_driven',
    primary_country: 'US', country_scope: ['US'], key_entities: [], key_topics: [],
  })));
  for (let i = 0; i < 40; i += 3) {
    batches[1].push({ type: 'trend_article', trend_id: TRENDS[i % 2], url_id: urlId(i), assignment_method: 'embedding', assignment_score: 0.7, trend_role: 'F2_pile_on', assigned_at: hourIso(10) });
  }
  batches[2].push(article(1, lcg(7), ['Grace Hopper']));
  return batches;
}

/** Memberships straight from the source tables, never from url_dimensions. */
const NAIVE_MEMBERS = `
  SELECT 'entity' AS kind, ae.entity_id::text AS key, ae.url_id FROM article_entities ae
  UNION SELECT 'category', ac.name, ac.url_id FROM article_categories ac
  UNION SELECT 'publisher', a.domain, a.id FROM articles a
  UNION SELECT 'trend', ta.trend_id::text, ta.url_id FROM trend_articles ta`;

async function naiveSeries(scope: DimScope, from: Date, to: Date, grain: Grain) {
  const list = buckets(from, to, grain);
  const rows = await queryRows<{ key: string; i: number; imp: number; ps: number; pubs: number }>(
    world.db,
    `SELECT m.key, b.i::int AS i, coalesce(sum(o.impressions), 0)::float8 AS imp, coalesce(sum(o.impressions::float8 * o.position), 0) AS ps,
            count(DISTINCT o.url_id) FILTER (WHERE o.impressions > 0)::int AS pubs
     FROM (${NAIVE_MEMBERS}) m JOIN observations o ON o.url_id = m.url_id
     JOIN unnest($5::timestamptz[], $6::timestamptz[]) WITH ORDINALITY AS b(f, t, i) ON o.hour >= b.f AND o.hour < b.t
     WHERE m.kind = $1 AND m.key = ANY($2::text[]) AND o.country = ANY($3::text[]) AND ($4::text IS NULL OR o.language = $4)
     GROUP BY m.key, b.i`,
    [scope.kind, scope.keys, scope.markets, scope.language, list.map((b) => b.from.toISOString()), list.map((b) => b.to.toISOString())],
  );
  const out = new Map(scope.keys.map((k) => [k, { imp: list.map(() => 0), ps: list.map(() => 0), pubs: list.map(() => 0) }]));
  for (const r of rows) {
    const s = out.get(r.key)!;
    s.imp[r.i - 1] = r.imp;
    s.ps[r.i - 1] = r.ps;
    s.pubs[r.i - 1] = r.pubs;
  }
  return out;
}

async function naiveDistinct(scope: DimScope, from: Date, to: Date) {
  const rows = await queryRows<{ key: string; publications: number; publishers: number; trends: number; last_seen: Date }>(
    world.db,
    `WITH active AS (
       SELECT m.key, o.url_id, max(o.hour) + interval '1 hour' AS last_hour FROM (${NAIVE_MEMBERS}) m JOIN observations o ON o.url_id = m.url_id
       WHERE m.kind = $1 AND m.key = ANY($2::text[]) AND o.country = ANY($3::text[]) AND ($4::text IS NULL OR o.language = $4)
         AND o.impressions > 0 AND o.hour >= $5 AND o.hour < $6
       GROUP BY m.key, o.url_id)
     SELECT a.key, count(DISTINCT a.url_id)::int AS publications, count(DISTINCT ar.domain)::int AS publishers,
            count(DISTINCT ta.trend_id)::int AS trends, max(a.last_hour) AS last_seen
     FROM active a JOIN articles ar ON ar.id = a.url_id LEFT JOIN trend_articles ta ON ta.url_id = a.url_id GROUP BY a.key`,
    [scope.kind, scope.keys, scope.markets, scope.language, ceilHour(from).toISOString(), ceilHour(to).toISOString()],
  );
  return new Map(rows.map((r) => [r.key, { ...r, last_seen: new Date(r.last_seen) }]));
}

beforeAll(async () => {
  world = await createWorld('oracle');
  for (const batch of dataset()) await seed(world, batch);
  const entityIds = await queryRows<{ id: string }>(world.db, 'SELECT id::text FROM entities ORDER BY normalized_name');
  keys = { entity: entityIds.map((r) => r.id), category: CATEGORIES, publisher: DOMAINS, trend: TRENDS, term: [] };
}, 120_000);

const arbitraryQuery = fc.record({
  kind: fc.constantFrom<DimensionKind>('entity', 'category', 'publisher', 'trend'),
  keyMask: fc.integer({ min: 1, max: 15 }),
  markets: fc.subarray(['US', 'GB', 'DE'], { minLength: 1 }),
  language: fc.constantFrom(null, 'en', 'es', 'de'),
  // Minutes, so windows start and end off the hour as real requests do.
  start: fc.integer({ min: -24 * 60, max: HOURS * 60 }),
  length: fc.integer({ min: 30, max: 10 * 24 * 60 }),
  grain: fc.constantFrom<Grain>('hour', 'day'),
});

describe('roll-ups equal the raw-observation reference', () => {
  it('impressions, position sums and publications per bucket; distinct counts and last_seen per window', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryQuery, async (q) => {
        const all = keys[q.kind];
        const chosen = all.filter((_, i) => q.keyMask & (1 << i % 4));
        const scope: DimScope = { kind: q.kind, keys: chosen.length ? chosen : all, markets: q.markets, language: q.language };
        const from = new Date(BASE + q.start * 60_000);
        const to = new Date(from.getTime() + q.length * 60_000);
        const [series, pubs, distinct, expected, expectedDistinct] = await Promise.all([
          seriesByKey(world.db, scope, from, to, q.grain),
          publicationsSeries(world.db, scope, from, to, q.grain),
          distinctByKey(world.db, scope, from, to),
          naiveSeries(scope, from, to, q.grain),
          naiveDistinct(scope, from, to),
        ]);
        for (const key of scope.keys) {
          const want = expected.get(key)!;
          expect(series.get(key)!.impressions, `${q.kind} ${key} impressions`).toEqual(want.imp);
          series.get(key)!.positionSum.forEach((v, i) => expect(v).toBeCloseTo(want.ps[i], 3));
          expect(pubs.get(key), `${q.kind} ${key} publications per bucket`).toEqual(want.pubs);
          const got = distinct.get(key);
          const ref = expectedDistinct.get(key);
          expect(got ? { ...got } : undefined, `${q.kind} ${key} distinct`).toEqual(
            ref ? { publications: ref.publications, publishers: ref.publishers, trends: ref.trends, lastSeen: ref.last_seen } : undefined,
          );
        }
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it('loading the last batch again changes nothing', async () => {
    const before = await queryRows<{ n: number; s: number }>(world.db, 'SELECT count(*)::int AS n, coalesce(sum(impressions), 0)::float8 AS s FROM dim_hours');
    // (Reloading earlier batches would legitimately undo the later corrections.)
    const summary = await seed(world, dataset()[2]);
    expect(summary.changed, 'a second identical load reports zero changes').toBe(0);
    const after = await queryRows<{ n: number; s: number }>(world.db, 'SELECT count(*)::int AS n, coalesce(sum(impressions), 0)::float8 AS s FROM dim_hours');
    expect(after).toEqual(before);
  }, 120_000);

  it('a full rebuild gives exactly the roll-ups the incremental path kept', async () => {
    const snapshot = async () => ({
      hours: await queryRows(world.db, `SELECT kind, key, country, language, hour::text, impressions::float8, round(position_sum::numeric, 3)::float8 AS ps
        FROM dim_hours WHERE impressions <> 0 OR abs(position_sum) > 1e-6 ORDER BY 1, 2, 3, 4, 5`),
      days: await queryRows(world.db, `SELECT kind, key, country, language, day::text, impressions::float8 FROM dim_days WHERE impressions <> 0 ORDER BY 1, 2, 3, 4, 5`),
      spans: await queryRows(world.db, 'SELECT url_id::text, country, language, start_hour::text, end_hour::text FROM url_spans ORDER BY 1, 2, 3, 4'),
      dims: await queryRows(world.db, 'SELECT kind, key, url_id::text FROM url_dimensions ORDER BY 1, 2, 3'),
    });
    const incremental = await snapshot();
    const client = await world.pool().connect();
    try {
      await rebuildRollups(client);
    } finally {
      client.release();
    }
    expect(await snapshot()).toEqual(incremental);
  }, 120_000);
});
