// The plan reads' oracle (docs/DATA.md "Plan categories and article reach"): article_tops, article_reach,
// entity_category_best and entity_best's '+' rows kept by the ingest batch by batch equal naive SQL over the source
// tables and a full rebuild, after late data, new markets, category corrections (a later line moves an article to
// another top level, drops its categories, adds one; two lines for one article in a batch; a correction and a new
// market of the same article in one batch), an article that arrives before its observations and one never observed.
// And the reads that use them (the articles list's page and total, the feed's count and pages, the entity list and
// detail) equal naive references for every kind of key scope: all markets, one, several, plans with one and two top
// levels, a plan with restricted countries, an internal key, a language, windows inside the data.
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../shared/db/raw';
import { dataset, HOURS, BASE } from '../fixtures/oracle';
import { seed } from '../helpers/seed';
import { createWorld, rebuildWorld, show, type World } from '../helpers/world';

const NOW = new Date(BASE + HOURS * 3_600_000 + 30 * 60_000).toISOString();
const DAY = 86_400_000;
const urlId = (i: number) => `0a0a0a0a-0000-4000-8000-${String(i).padStart(12, '0')}`;
const LATE = urlId(100);
const UNSEEN = urlId(101);
const US_ONLY = urlId(102);

let world: World;

interface Scope {
  name: string;
  key: string;
  /** The key's countries (null: every market of the data). */
  countries: string[] | null;
  /** Whether the key has no countries at all (an internal key): it also sees articles never observed. */
  internal?: boolean;
  /** The plan's top levels (null: every category). */
  plan: string[] | null;
  historyDays: number;
}
const scopes: Scope[] = [];

/** An article of the base data set with other categories (and, optionally, other scores). */
function corrected(batches: object[][], i: number, categories: string[], rescore = false): object {
  const a = batches[0].find((r: any) => r.type === 'article' && r.id === urlId(i)) as any;
  return {
    ...a,
    categories: categories.map((name, j) => ({ name, confidence: 0.9 - j / 10 })),
    entities: rescore
      ? a.entities.map((m: any, j: number) => ({ ...m, unified_score: 0.97 - j / 10, embedding_similarity: 0.3 }))
      : a.entities,
  };
}

const seen = (id: string, country: string, language: string, hour: number, impressions = 40) => ({
  type: 'observation',
  url_id: id,
  country,
  language,
  hour: new Date(BASE + hour * 3_600_000).toISOString(),
  impressions,
  position: 3,
});

function corrections(batches: object[][]): object[][] {
  const late = { ...corrected(batches, 3, ['/Tech/AI']), id: LATE, url: 'https://a.example.com/a/100', title: 'Story 100' };
  return [
    [
      // A later line moves article 2 from /Sports to /News, with better scores (its entities' bests move).
      corrected(batches, 2, ['/News/Politics'], true),
      // Article 5 loses both of its categories; article 7 gains a second top level.
      corrected(batches, 5, []),
      corrected(batches, 7, ['/Tech', '/Sports/Soccer']),
      // Two lines for one article in one batch: the later one is the article.
      corrected(batches, 11, ['/Sports/Soccer']),
      corrected(batches, 11, ['/News', '/Tech']),
      // A correction and a new market of the same article in one batch.
      corrected(batches, 9, ['/Sports/Soccer', '/News']),
      seen(urlId(9), 'GB', 'en', 200),
      // An article with categories and no observation yet, and one never observed (with its own entity).
      late,
      {
        ...corrected(batches, 6, ['/News']),
        id: UNSEEN,
        url: 'https://a.example.com/a/101',
        title: 'Story 101',
        entities: [{ name: 'Unseen Person', type: 'person', mentions: 1, unified_score: 0.99, embedding_similarity: 0.9, source: 'ner' }],
      },
      // Seen in the US only: the best occurrence of a shared entity, and the only one of another.
      {
        ...corrected(batches, 8, ['/Tech', '/News']),
        id: US_ONLY,
        url: 'https://a.example.com/a/102',
        title: 'Story 102',
        entities: [
          { name: 'Ada Lovelace', type: 'person', mentions: 1, unified_score: 0.99, embedding_similarity: 0.9, source: 'ner' },
          { name: 'Only Here', type: 'person', mentions: 1, unified_score: 0.8, embedding_similarity: 0.9, source: 'ner' },
        ],
      },
      seen(US_ONLY, 'US', 'en', 230),
    ],
    [
      // The late article surfaces; article 2 reaches a new market; article 7 is corrected again.
      seen(LATE, 'US', 'en', 250),
      seen(LATE, 'GB', 'en', 251),
      seen(LATE, 'US', 'en', 252, 0),
      seen(urlId(2), 'DE', 'de', 240),
      corrected(batches, 7, ['/Tech/Gadgets']),
    ],
  ];
}

beforeAll(async () => {
  world = await createWorld('plan_reads_oracle');
  world.setNow(NOW);
  const batches = dataset();
  for (const batch of [...batches, ...corrections(batches)]) await seed(world, batch);
  const add = async (
    name: string,
    plan: 'scale' | 'grow',
    categories: string[] | null,
    countries: string[] | null,
    historyDays: number,
  ) => {
    const t = await world.tenant(
      { plan, categories, countries: ['US', 'GB', 'DE'], historyDays, rateLimitPerMinute: 1_000_000 },
      { countries: countries ?? undefined },
    );
    scopes.push({ name, key: t.key, countries, plan: categories, historyDays });
  };
  await add('every market', 'scale', null, null, 365);
  await add('US', 'scale', null, ['US'], 365);
  await add('GB+DE', 'scale', null, ['GB', 'DE'], 365);
  await add('plan /News', 'grow', ['/News'], null, 90);
  await add('plan /News+/Sports, US', 'grow', ['/News', '/Sports'], ['US'], 90);
  // A history shorter than the data: the default window starts inside it.
  await add('plan /Tech, GB+DE, 5 days', 'grow', ['/Tech'], ['GB', 'DE'], 5);
  scopes.push({ name: 'internal', key: await world.internalKey(), countries: null, internal: true, plan: null, historyDays: 730 });
}, 120_000);

// ---- the tables: naive SQL over the source tables, and a rebuild ----

/** The rule plans use, stated independently: a path's first segment. */
const NAIVE_TOPS = `SELECT DISTINCT url_id, substring(name from '^/[^/]*') COLLATE "C" AS top FROM article_categories`;

const naiveTables = async () => ({
  tops: await queryRows(
    world.db,
    `SELECT url_id::text, array_agg(top ORDER BY top) AS top_categories FROM (${NAIVE_TOPS}) t GROUP BY url_id ORDER BY 1`,
  ),
  reach: await queryRows(
    world.db,
    `
    WITH per AS (
      SELECT p.url_id, array_agg(p.country || ':' || p.language ORDER BY (p.country || ':' || p.language) COLLATE "C") AS markets,
             array_agg(DISTINCT p.country ORDER BY p.country) AS countries,
             coalesce((SELECT array_agg(t.top ORDER BY t.top) FROM (${NAIVE_TOPS}) t WHERE t.url_id = p.url_id), '{}') AS top_categories
      FROM url_profiles p GROUP BY p.url_id)
    SELECT markets, countries, top_categories, count(*)::int AS articles FROM per GROUP BY 1, 2, 3 ORDER BY 1, 3`,
  ),
  best: await queryRows(
    world.db,
    `
    WITH occ AS (
      SELECT ae.*, '*' AS country, t.top FROM article_entities ae JOIN (${NAIVE_TOPS}) t ON t.url_id = ae.url_id
      UNION ALL
      SELECT ae.*, '+' AS country, t.top FROM article_entities ae JOIN (${NAIVE_TOPS}) t ON t.url_id = ae.url_id
        WHERE ae.url_id IN (SELECT url_id FROM url_profiles)
      UNION ALL
      SELECT ae.*, p.country, t.top FROM article_entities ae JOIN (${NAIVE_TOPS}) t ON t.url_id = ae.url_id
        JOIN (SELECT DISTINCT url_id, country FROM url_profiles) p ON p.url_id = ae.url_id)
    SELECT DISTINCT ON (entity_id, country, top) entity_id::text, country, top AS category, url_id::text, unified_score, embedding_similarity, source
    FROM occ ORDER BY entity_id, country, top, unified_score DESC, embedding_similarity DESC, url_id`,
  ),
  // entity_best with its '+' rows (the articles seen in some market).
  entityBest: await queryRows(
    world.db,
    `
    WITH occ AS (
      SELECT ae.*, '*' AS country FROM article_entities ae
      UNION ALL SELECT ae.*, '+' FROM article_entities ae WHERE ae.url_id IN (SELECT url_id FROM url_profiles)
      UNION ALL SELECT ae.*, p.country FROM article_entities ae JOIN (SELECT DISTINCT url_id, country FROM url_profiles) p ON p.url_id = ae.url_id)
    SELECT DISTINCT ON (entity_id, country) entity_id::text, country, url_id::text, unified_score, embedding_similarity, source
    FROM occ ORDER BY entity_id, country, unified_score DESC, embedding_similarity DESC, url_id`,
  ),
});

const storedTables = async () => ({
  tops: await queryRows(world.db, 'SELECT url_id::text, top_categories FROM article_tops ORDER BY 1'),
  reach: await queryRows(world.db, 'SELECT markets, countries, top_categories, articles FROM article_reach ORDER BY 1, 3'),
  best: await queryRows(
    world.db,
    `SELECT entity_id::text, country, category, url_id::text, unified_score, embedding_similarity, source
    FROM entity_category_best ORDER BY entity_id, country, category`,
  ),
  entityBest: await queryRows(
    world.db,
    `SELECT entity_id::text, country, url_id::text, unified_score, embedding_similarity, source
    FROM entity_best ORDER BY entity_id, country`,
  ),
});

describe("the plan reads' tables", () => {
  it('hold the corrections: the rows the test is about exist', async () => {
    const tops = new Map((await storedTables()).tops.map((r: any) => [r.url_id, r.top_categories]));
    expect(tops.get(urlId(2))).toEqual(['/News']);
    expect(tops.has(urlId(5))).toBe(false);
    expect(tops.get(urlId(7))).toEqual(['/Tech']);
    expect(tops.get(urlId(9))).toEqual(['/News', '/Sports']);
    expect(tops.get(urlId(11))).toEqual(['/News', '/Tech']);
    expect(tops.get(LATE)).toEqual(['/Tech']);
    // An entity only on a never observed article: over all articles ('*'), not among those seen ('+').
    const unseen = await queryRows<{ country: string }>(
      world.db,
      `SELECT b.country FROM entity_best b JOIN entities e ON e.id = b.entity_id WHERE e.normalized_name = 'unseen person' ORDER BY 1`,
    );
    expect(unseen.map((r) => r.country)).toEqual(['*']);
  });

  it('incremental (batch by batch) == naive SQL over the source tables == a full rebuild', async () => {
    const incremental = await storedTables();
    expect(incremental.reach.length).toBeGreaterThan(5);
    expect(incremental.best.length).toBeGreaterThan(5);
    expect(incremental).toEqual(await naiveTables());
    await rebuildWorld(world);
    expect(await storedTables()).toEqual(incremental);
  }, 120_000);
});

// ---- the reads: naive references per key scope ----

const MARKETS = ['DE', 'GB', 'US'];
const marketsOf = (s: Scope) => s.countries ?? MARKETS;

/** Articles whose first sighting in the scope lies in [from, to), newest first (the list's order). */
async function naiveArticles(s: Scope, lang: string | null, from: Date, to: Date, asc = false): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(
    world.db,
    `WITH firsts AS (SELECT url_id, min(first_seen) AS first_seen FROM url_profiles WHERE country = ANY($1) AND ($2::text IS NULL OR language = $2) GROUP BY url_id)
     SELECT f.url_id::text AS id FROM firsts f
     WHERE f.first_seen >= $3 AND f.first_seen < $4 AND ($5::text[] IS NULL OR f.url_id IN (SELECT url_id FROM (${NAIVE_TOPS}) t WHERE t.top = ANY($5)))
     ORDER BY f.first_seen ${asc ? 'ASC' : 'DESC'}, f.url_id`,
    [marketsOf(s), lang, from.toISOString(), to.toISOString(), s.plan],
  );
  return rows.map((r) => r.id);
}

/** Feed profiles of the scope last seen after `after`, by last_seen (the feed's keyset order). */
async function naiveFeed(s: Scope, lang: string | null, after: Date): Promise<string[]> {
  const rows = await queryRows<{ k: string }>(
    world.db,
    `SELECT url_id::text || '|' || country || '|' || language AS k FROM url_profiles p
     WHERE country = ANY($1) AND ($2::text IS NULL OR language = $2) AND last_seen > $3
       AND ($4::text[] IS NULL OR p.url_id IN (SELECT url_id FROM (${NAIVE_TOPS}) t WHERE t.top = ANY($4)))
     ORDER BY last_seen DESC, url_id DESC, country DESC, language DESC`,
    [marketsOf(s), lang, after.toISOString(), s.plan],
  );
  return rows.map((r) => r.k);
}

/** Each visible entity's best occurrence (list order), from the links. */
async function naiveEntities(s: Scope) {
  return queryRows<{ normalized_name: string; url_id: string; unified_score: number }>(
    world.db,
    `WITH best AS (
       SELECT DISTINCT ON (ae.entity_id) ae.entity_id, ae.url_id, ae.unified_score FROM article_entities ae
       WHERE ($1::text[] IS NULL OR ae.url_id IN (SELECT url_id FROM url_profiles WHERE country = ANY($1)))
         AND ($2::text[] IS NULL OR ae.url_id IN (SELECT url_id FROM (${NAIVE_TOPS}) t WHERE t.top = ANY($2)))
       ORDER BY ae.entity_id, ae.unified_score DESC, ae.embedding_similarity DESC, ae.url_id)
     SELECT e.normalized_name, b.url_id::text, b.unified_score FROM best b JOIN entities e ON e.id = b.entity_id
     ORDER BY b.unified_score DESC, e.normalized_name`,
    [s.internal ? null : marketsOf(s), s.plan],
  );
}

const iso = (ms: number) => new Date(ms).toISOString();

describe('reads against naive references, every key scope', () => {
  it('GET /v1/articles: total and pages, default window, a language, windows inside the data, offsets, both orders', async () => {
    const now = Date.parse(NOW);
    for (const s of scopes) {
      const start = now - s.historyDays * DAY;
      const windows: [string, Date, Date][] = [
        ['', new Date(start), new Date(now)],
        // Edges inside the data, off the hour and off the day (both ways of counting the total).
        [
          `&date_from=${iso(BASE + 30 * 3_600_000 + 17 * 60_000)}&date_to=${iso(BASE + 200 * 3_600_000 + 5 * 60_000)}`,
          new Date(BASE + 30 * 3_600_000 + 17 * 60_000),
          new Date(BASE + 200 * 3_600_000 + 5 * 60_000),
        ],
        [`&date_from=${iso(BASE + 240 * 3_600_000)}`, new Date(BASE + 240 * 3_600_000), new Date(now)],
        [
          `&date_from=${iso(BASE - 5 * DAY)}&date_to=${iso(BASE + 20 * 3_600_000)}`,
          new Date(BASE - 5 * DAY),
          new Date(BASE + 20 * 3_600_000),
        ],
      ];
      for (const [query, asked, to] of windows) {
        // The plan's history is a floor: an earlier start is clamped to it.
        const from = new Date(Math.max(asked.getTime(), start));
        for (const lang of [null, 'en']) {
          const want = await naiveArticles(s, lang, from, to);
          const label = `${s.name} ${query} ${lang}`;
          const all = await world.call(`/v1/articles?limit=200${query}${lang ? `&lang=${lang}` : ''}`, { key: s.key });
          expect(all.status, show(all)).toBe(200);
          expect(all.body.total, label).toBe(want.length);
          expect(
            all.body.articles.map((a: any) => a.id),
            label,
          ).toEqual(want);
          const page = await world.call(`/v1/articles?limit=4&offset=3${query}${lang ? `&lang=${lang}` : ''}`, { key: s.key });
          expect(page.body.total, label).toBe(want.length);
          expect(
            page.body.articles.map((a: any) => a.id),
            label,
          ).toEqual(want.slice(3, 7));
        }
        const asc = await world.call(`/v1/articles?limit=200&sort_order=asc${query}`, { key: s.key });
        expect(
          asc.body.articles.map((a: any) => a.id),
          `${s.name} ${query} asc`,
        ).toEqual(await naiveArticles(s, null, from, to, true));
      }
    }
  }, 180_000);

  it('GET /v2/feed: total and every page (offset and cursor) for each scope and language', async () => {
    const now = Date.parse(NOW);
    for (const s of scopes) {
      for (const lang of [null, 'en']) {
        const want = await naiveFeed(s, lang, new Date(now - s.historyDays * DAY));
        const label = `${s.name} ${lang}`;
        const query = `sort_by=last_seen${lang ? `&lang=${lang}` : ''}`;
        const first = await world.call(`/v2/feed?${query}&limit=200`, { key: s.key });
        expect(first.status, show(first)).toBe(200);
        expect(first.body.total, label).toBe(want.length);
        const keys = (items: any[]) => items.map((i) => `${i.url_id}|${i.country.toUpperCase()}|${i.language}`);
        expect(keys(first.body.items), label).toEqual(want.slice(0, 200));
        const deep = await world.call(`/v2/feed?${query}&limit=5&offset=9`, { key: s.key });
        expect(keys(deep.body.items), label).toEqual(want.slice(9, 14));
        const walked: string[] = [];
        let cursor: string | null = null;
        do {
          const reply: any = await world.call(`/v2/feed?${query}&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
            key: s.key,
          });
          expect(reply.status, show(reply)).toBe(200);
          walked.push(...keys(reply.body.items));
          cursor = reply.body.next_cursor;
        } while (cursor);
        expect(walked, `${label} cursor pages`).toEqual(want);
        // A period: the count reads every match (the plan's articles hashed, not the complement); the history is its floor.
        const week = await world.call(`/v2/feed?period=7d&limit=1${lang ? `&lang=${lang}` : ''}`, { key: s.key });
        const weekStart = new Date(now - Math.min(7, s.historyDays) * DAY);
        expect(week.body.total, `${label} 7d`).toBe((await naiveFeed(s, lang, weekStart)).length);
      }
    }
  }, 180_000);

  it("GET /v1/entities: list, total and detail take the best occurrence of the scope's articles", async () => {
    for (const s of scopes) {
      const want = await naiveEntities(s);
      expect(want.length, s.name).toBeGreaterThan(0);
      const list = await world.call('/v1/entities?limit=200', { key: s.key });
      expect(list.status, show(list)).toBe(200);
      expect(list.body.total, s.name).toBe(want.length);
      expect(
        list.body.entities.map((e: any) => ({ normalized_name: e.normalized_name, url_id: e.url_id, unified_score: e.unified_score })),
        s.name,
      ).toEqual(want);
      const page = await world.call('/v1/entities?limit=2&offset=1', { key: s.key });
      expect(
        page.body.entities.map((e: any) => e.normalized_name),
        s.name,
      ).toEqual(want.slice(1, 3).map((e) => e.normalized_name));
      for (const entity of want) {
        const detail = await world.call(`/v1/entities/${encodeURIComponent(entity.normalized_name)}`, { key: s.key });
        expect(detail.body.url_id, `${s.name} ${entity.normalized_name}`).toBe(entity.url_id);
      }
    }
  }, 120_000);
});
