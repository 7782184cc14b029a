// The trends oracle: detail numbers (article_count, first/last, peak_date, daily_counts_180d, every
// feature) and hierarchy counts equal a plain reference over the raw assignments, on random data
// that arrives in several batches: late assignments of old articles, and corrected first_seen_at.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../shared/db/raw';
import { reference } from '../fixtures/trend-oracle';
import { seed } from '../helpers/seed';
import { createWorld, rebuildWorld, show, type World } from '../helpers/world';

/** Each case adds data and asks again at once: answers kept in the isolate (ISOLATE_CACHE_SECONDS) would be the previous case's. */
const UNCACHED = { ISOLATE_CACHE_SECONDS: '0' };

const BASE = Date.parse('2026-11-20T00:00:00Z');
const THEME = '7e3e0000-0000-4000-8000-0000000000aa';
const COUNTRIES = ['US', 'FR'];

let world: World;
let internal: string;
let usKey: string;

beforeAll(async () => {
  world = await createWorld('trends_oracle');
  await seed(world, [
    ...COUNTRIES.map((alpha_2) => ({
      type: 'country',
      alpha_2,
      alpha_3: `${alpha_2}X`,
      name: alpha_2,
      region: 'R',
      sub_region: 'S',
      languages: ['en'],
    })),
    { type: 'hierarchy_node', id: THEME, level: 2, label: 'Oracle', label_en: 'Oracle', label_ru: 'Oracle', parent_id: null },
  ]);
  internal = await world.internalKey();
  usKey = await world.internalKey(['US']);
}, 60_000);

const at = (minutesAgo: number) => new Date(BASE - minutesAgo * 60_000).toISOString();

function articleLine(id: string, firstSeen: string) {
  return {
    type: 'article',
    id,
    url: `https://oracle.example.com/${id}`,
    domain: 'oracle.example.com',
    publisher: 'Oracle',
    title: id,
    content_language: 'en',
    date_published: null,
    meta: { meta_title: '', meta_description: '', headline: '', section: '' },
    enrichment: { actors: [], topic: [], format_group: 'article', format_type: 'news', entities: {} },
    rss_feeds: null,
    markdown_content: null,
    first_seen_at: firstSeen,
    refreshed_at: firstSeen,
  };
}

// Minutes before BASE: up to ~2.2 years, so every acf lag is sometimes defined.
const minutes = fc.integer({ min: 0, max: 800 * 24 * 60 });
const arbitraryCase = fc.record({
  trends: fc.array(
    fc.record({
      country: fc.constantFrom('US', 'FR'),
      articles: fc.array(
        fc.record({ ago: minutes, late: fc.boolean(), moved: fc.option(minutes, { nil: undefined }), market: fc.constantFrom('US', 'FR') }),
        { maxLength: 25 },
      ),
      // Shares of its articles with another trend of the run (distinct counts must not double them).
      shareWithFirst: fc.boolean(),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  // The clock: after the data, by up to 40 days, at any minute.
  later: fc.integer({ min: 0, max: 40 * 24 * 60 }),
});

describe('trend numbers equal the raw-assignment reference', () => {
  it('detail and hierarchy counts, after late and corrected data, for random clocks and keys', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryCase, async (c) => {
        const topic = crypto.randomUUID();
        const trends = c.trends.map(() => crypto.randomUUID());
        const batches: object[][] = [
          [{ type: 'hierarchy_node', id: topic, level: 1, label: 'T', label_en: 'T', label_ru: 'T', parent_id: THEME }],
          [],
          [],
        ];
        c.trends.forEach((t, i) => {
          batches[0].push({
            type: 'trend',
            id: trends[i],
            label: 'x',
            label_en: 'x',
            label_ru: 'x',
            state: 'hot',
            structural_type: 'unknown',
            topic_id: topic,
            primary_country: t.country,
            country_scope: [t.country],
          });
        });
        const firstTrendArticles: string[] = [];
        c.trends.forEach((t, i) => {
          for (const a of t.articles) {
            const id = crypto.randomUUID();
            if (i === 0) firstTrendArticles.push(id);
            const batch = a.late ? batches[1] : batches[0];
            batch.push(articleLine(id, at(a.ago)));
            batch.push({
              type: 'observation',
              url_id: id,
              country: a.market,
              language: 'en',
              hour: at(a.ago - (a.ago % 60)),
              impressions: 1,
              position: 1,
            });
            batch.push({
              type: 'trend_article',
              trend_id: trends[i],
              url_id: id,
              assignment_method: 'm',
              assignment_score: 0.5,
              trend_role: 'F2_pile_on',
              assigned_at: at(0),
            });
            if (a.moved !== undefined) batches[2].push(articleLine(id, at(a.moved)));
          }
          if (i > 0 && t.shareWithFirst) {
            for (const id of firstTrendArticles.slice(0, 3)) {
              batches[1].push({
                type: 'trend_article',
                trend_id: trends[i],
                url_id: id,
                assignment_method: 'm',
                assignment_score: 0.4,
                trend_role: 'F3_long_tail',
                assigned_at: at(0),
              });
            }
          }
        });
        for (const batch of batches) if (batch.length) await seed(world, batch);

        const now = BASE + c.later * 60_000;
        const raw = await queryRows<{ trend_id: string; first_seen_at: string }>(
          world.db,
          `SELECT ta.trend_id::text, a.first_seen_at FROM trend_articles ta JOIN articles a ON a.id = ta.url_id WHERE ta.trend_id = ANY($1::uuid[])`,
          [trends],
        );
        for (const id of trends) {
          const want = reference(
            raw.filter((r) => r.trend_id === id).map((r) => Date.parse(r.first_seen_at)),
            now,
          );
          const reply = await world.call(`/v1/trends/${id}`, { key: internal, env: { NOW: new Date(now).toISOString(), ...UNCACHED } });
          expect(reply.status, show(reply)).toBe(200);
          const got = reply.body;
          expect(got.article_count).toBe(want.article_count);
          expect(got.first_seen_at && Date.parse(got.first_seen_at)).toBe(want.first_seen_at);
          expect(got.last_article_at && Date.parse(got.last_article_at)).toBe(want.last_article_at);
          expect(got.peak_date).toBe(want.peak_date);
          expect(got.daily_counts_180d).toEqual(want.daily_counts_180d);
          for (const [name, value] of Object.entries(want.features)) {
            if (value === null) expect(got.features[name], name).toBeNull();
            else expect(got.features[name], name).toBeCloseTo(value, 3);
          }
        }
        await checkHierarchy(topic);
      }),
      { numRuns: 25 },
    );
  }, 240_000);

  it('a full rebuild (npm run rollups:rebuild) gives exactly the trend_days and peak dates ingest kept', async () => {
    const snapshot = async () => ({
      days: await queryRows(world.db, 'SELECT trend_id::text, day::text, articles FROM trend_days ORDER BY 1, 2'),
      peaks: await queryRows(world.db, 'SELECT id::text, peak_date::text, first_48h_articles FROM trends ORDER BY 1'),
    });
    const incremental = await snapshot();
    expect(incremental.days.length).toBeGreaterThan(0);
    await rebuildWorld(world);
    expect(await snapshot()).toEqual(incremental);
  }, 120_000);
});

/** Topic and theme counts, unrestricted and US-only, against plain SQL over the raw rows. */
async function checkHierarchy(topic: string) {
  for (const [key, markets] of [
    [internal, null],
    [usKey, ['US']],
  ] as [string, string[] | null][]) {
    const rows = await queryRows<{
      topic_id: string;
      trend_id: string;
      url_id: string | null;
      countries: string[] | null;
      trend_countries: string[];
    }>(
      world.db,
      `SELECT t.topic_id::text, t.id::text AS trend_id, ta.url_id::text, t.country_scope || t.primary_country AS trend_countries,
              (SELECT array_agg(p.country) FROM url_profiles p WHERE p.url_id = ta.url_id) AS countries
       FROM trends t JOIN hierarchy_nodes n ON n.id = t.topic_id LEFT JOIN trend_articles ta ON ta.trend_id = t.id
       WHERE n.parent_id = $1`,
      [THEME],
    );
    const visible = rows.filter((r) => markets === null || r.trend_countries.some((c) => markets.includes(c)));
    const seen = (r: (typeof rows)[number]) =>
      r.url_id !== null && (markets === null || (r.countries ?? []).some((c) => markets.includes(c)));
    const want = (filter: (r: (typeof rows)[number]) => boolean) => ({
      n_trends: new Set(visible.filter(filter).map((r) => r.trend_id)).size,
      n_articles: new Set(
        visible
          .filter(filter)
          .filter(seen)
          .map((r) => r.url_id),
      ).size,
    });
    const themes = (await world.call('/v1/themes', { key, env: UNCACHED })).body.themes;
    expect(themes.find((n: any) => n.id === THEME)).toMatchObject(want(() => true));
    const topics = (await world.call(`/v1/themes/${THEME}/topics`, { key, env: UNCACHED })).body.topics;
    expect(topics.find((n: any) => n.id === topic)).toMatchObject(want((r) => r.topic_id === topic));
    const order = topics.map((n: any) => n.n_articles);
    expect(order).toEqual([...order].sort((a: number, b: number) => b - a));
  }
}
