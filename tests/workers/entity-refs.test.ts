// Entity refs of the feed and articles filters are resolved to ids once per statement (an uncorrelated
// subquery), never matched per row by `kg_id = ref OR normalized_name = ...`
// (docs/SECURITY.md "Entity refs resolved once per statement").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drizzle } from 'drizzle-orm/neon-http';
import type { Db } from '../../shared/db/client';
import { countProfiles, readPage, type FeedFilter, type PageRequest } from '../../functions/feed/queries';
import { listArticles } from '../../functions/articles/queries';
import { slideWindowsWith, windowEnd } from '../../shared/feed/windows';
import { scopeOf } from '../../shared/scope/scope';
import { articleRecords, ELECTION, MESSI, NOW, SOCCER, STARTUP, TENNIS } from '../fixtures/articles';
import { seed } from '../helpers/seed';
import { listedScope } from '../helpers/scope';
import { createWorld, type World } from '../helpers/world';

let world: World;
let markets: string[];
/** Refs of both kinds: a kg_id, names in odd case and padded, an entity on two articles, an unknown one. */
const REFS = [MESSI.kg_id, '  BUENOS aires ', 'Roger Ace', 'Ada Vote', 'Nobody Known'];

const entity = (name: string, extra: object = {}) => ({
  name,
  type: 'person',
  mentions: 1,
  unified_score: 0.5,
  embedding_similarity: 0.5,
  source: 'ner',
  ...extra,
});
const EXTRA_ENTITIES: Record<string, object[]> = {
  [TENNIS]: [entity('Roger Ace'), entity('Ada Vote')],
  [ELECTION]: [entity('Ada Vote', { kg_id: '/m/ada' })],
  [STARTUP]: [entity('Buenos Aires', { type: 'place' })],
};

beforeAll(async () => {
  world = await createWorld('entity_refs');
  world.setNow(NOW);
  await seed(
    world,
    articleRecords().map((r: any) =>
      r.type === 'article' && EXTRA_ENTITIES[r.id] ? { ...r, entities: [...r.entities, ...EXTRA_ENTITIES[r.id]] } : r,
    ),
  );
  const client = await world.pool().connect();
  try {
    await slideWindowsWith(client, windowEnd(new Date(NOW)));
  } finally {
    client.release();
  }
  markets = ((await world.db.$client.query(`SELECT DISTINCT country FROM url_profiles`)) as { country: string }[]).map((r) => r.country);
}, 60_000);

afterAll(async () => {
  await world.pool().end();
});

/** A db that records every statement it sends (the real database answers). */
function recording(): { db: Db; sent: [string, unknown[]][] } {
  const sent: [string, unknown[]][] = [];
  const client = world.db.$client;
  const $client = Object.assign((strings: TemplateStringsArray, ...values: unknown[]) => client(strings, ...values), client, {
    query: (text: string, params: unknown[] = [], opts?: object) => {
      sent.push([text, params]);
      return client.query(text, params, opts as never);
    },
  });
  return { db: drizzle({ client: $client as never }) as unknown as Db, sent };
}

/** The old per-row predicate, as the oracle: article ids matching `refs` (any, or all). */
async function oracle(list: string[], all: boolean): Promise<Set<string>> {
  const rows = (await world.db.$client.query(
    `SELECT a.id FROM articles a WHERE (
       SELECT count(DISTINCT x.ref) FROM unnest($1::text[]) AS x(ref)
       JOIN entities e ON e.kg_id = x.ref OR e.normalized_name = lower(trim(x.ref))
       JOIN article_entities ae ON ae.entity_id = e.id AND ae.url_id = a.id
     ) >= CASE WHEN $2::bool THEN cardinality($1::text[]) ELSE 1 END`,
    [list, all],
  )) as { id: string }[];
  return new Set(rows.map((r) => r.id));
}

/** The feed page's keys (one statement with its items, as the route reads it). */
const pageKeys = (db: Db, f: FeedFilter, page: PageRequest) =>
  readPage(db, f, page, {
    end: windowEnd(new Date(NOW)),
    dayStart: new Date(Math.floor(Date.parse(NOW) / 86_400_000) * 86_400_000 - 29 * 86_400_000),
    markdown: false,
  });

const filter = (entities: string[], matchAll: boolean): FeedFilter => ({
  scope: scopeOf({ projectId: null, allowedCountries: null, categories: null }),
  language: null,
  categories: null,
  entities,
  matchAll,
  seenAfter: null,
  seenBefore: null,
  firstSeenFrom: null,
});

/** Every plan node of an EXPLAIN (FORMAT JSON) tree. */
function nodes(plan: any, out: { node: any }[] = []) {
  out.push({ node: plan });
  for (const child of plan.Plans ?? []) nodes(child, out);
  return out;
}

async function explain(text: string, params: unknown[]) {
  const client = await world.pool().connect();
  try {
    const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params);
    return nodes(rows[0]['QUERY PLAN'][0].Plan);
  } finally {
    client.release();
  }
}

describe('same results as the per-row match', () => {
  it('the refs name what the fixture says (so the comparisons below are not vacuous)', async () => {
    expect(await oracle(REFS, false)).toEqual(new Set([SOCCER, TENNIS, ELECTION, STARTUP]));
    expect(await oracle(REFS.slice(2, 4), true)).toEqual(new Set([TENNIS]));
    expect(await oracle(REFS.slice(0, 2), true)).toEqual(new Set([SOCCER]));
    expect(await oracle([REFS[0], REFS[0]], true)).toEqual(new Set());
    const page = await pageKeys(world.db, filter(REFS.slice(2, 4), true), {
      sort: 'last_seen',
      order: 'desc',
      limit: 50,
      offset: 0,
      after: null,
      snapshot: null,
    });
    expect(page.keys.map((k) => k.url_id)).toEqual([TENNIS]);
  });

  it.each([false, true])('feed: every profile of a matching article, match all = %s', async (all) => {
    for (const list of [REFS, REFS.slice(0, 2), REFS.slice(1, 2), REFS.slice(2, 4), [REFS[3]], [REFS[4]], [REFS[0], REFS[0]]]) {
      const expected = await oracle(list, all);
      const page = await pageKeys(world.db, filter(list, all), {
        sort: 'last_seen',
        order: 'desc',
        limit: 10_000,
        offset: 0,
        after: null,
        snapshot: null,
      });
      expect(new Set(page.keys.map((k) => k.url_id)), JSON.stringify(list)).toEqual(
        new Set([...expected].filter((id) => page.keys.some((k) => k.url_id === id))),
      );
      // Every matching article with a profile is on the page, and nothing else.
      const profiled = (await world.db.$client.query(
        `SELECT DISTINCT url_id::text AS id FROM url_profiles WHERE url_id = ANY($1::uuid[])`,
        [[...expected]],
      )) as { id: string }[];
      expect(new Set(page.keys.map((k) => k.url_id))).toEqual(new Set(profiled.map((r) => r.id)));
      expect(await countProfiles(world.db, filter(list, all))).toBe(page.keys.length);
    }
  });

  it('articles: the same set of ids', async () => {
    for (const all of [false, true]) {
      for (const list of [REFS, REFS.slice(0, 2), REFS.slice(2, 4), [REFS[3]], []]) {
        const expected = await oracle(list, all);
        const { rows } = await listArticles(world.db, {
          scope: await listedScope(world.db, markets),
          language: null,
          from: new Date('2000-01-01T00:00:00Z'),
          to: new Date('2100-01-01T00:00:00Z'),
          categories: null,
          entities: list,
          matchAll: all,
          q: null,
          sortBy: 'first_seen',
          sortOrder: 'desc',
          limit: 200,
          offset: 0,
        });
        const inWindow = (await world.db.$client.query(
          `SELECT DISTINCT url_id::text AS id FROM url_profiles WHERE url_id = ANY($1::uuid[])`,
          [[...expected]],
        )) as { id: string }[];
        expect(new Set(rows.map((r) => r.id)), JSON.stringify([list, all])).toEqual(new Set(inWindow.map((r) => r.id)));
      }
    }
  });
});

describe('EXPLAIN: refs resolved once per statement, rows filtered by id', () => {
  it('the feed page and count statements read `entities` once each, with no OR, and filter rows by a hashed id set (join or SubPlan)', async () => {
    const { db, sent } = recording();
    await pageKeys(db, filter(REFS, true), { sort: 'impressions_24h', order: 'desc', limit: 51, offset: 0, after: null, snapshot: null });
    await countProfiles(db, filter(REFS, false));
    expect(sent.length).toBe(2);
    for (const [text, params] of sent) {
      expect(text).not.toMatch(/kg_id = x\.ref OR/);
      const plan = await explain(text, params);
      const reads = plan.filter(({ node }) => node['Relation Name'] === 'entities');
      expect(reads.length, JSON.stringify(reads)).toBeGreaterThan(0);
      for (const { node } of reads) {
        // Read once per statement, by kg_id or by name (never both in one condition).
        expect(node['Actual Loops'], JSON.stringify(node)).toBeLessThanOrEqual(1);
        expect(JSON.stringify(node)).not.toMatch(/ OR /);
      }
      // The matching article ids are built once (the grouping by article runs once), then each row probes them.
      const sets = plan.filter(({ node }) => JSON.stringify(node['Group Key'] ?? []).includes('ae.url_id'));
      expect(sets.length, JSON.stringify(plan.map(({ node }) => node['Node Type']))).toBeGreaterThan(0);
      for (const { node } of sets) expect(node['Actual Loops'], JSON.stringify(node)).toBeLessThanOrEqual(1);
      for (const { node } of plan) expect(`${node.Filter ?? ''} ${node['Join Filter'] ?? ''}`).not.toMatch(/kg_id|normalized_name/);
    }
  });
});
