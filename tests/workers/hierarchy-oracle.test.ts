// The hierarchy counts oracle (docs/DATA.md "Hierarchy counts"): a bulk load (roll-ups rebuilt at its end), then
// hourly batches that move trends, topics, categories and markets, with late, repeated and corrected
// lines. After every step: the kept tables equal a full rebuild, and for every key scope (every
// market, one, several, all with data, one without data, none; with and without plan categories)
// the themes and each theme's topics equal the naive per-request query over the raw facts, through
// the query module and through the API.
import { beforeAll, describe, expect, it } from 'vitest';
import { listThemes, listTopics, type NodeRow } from '../../functions/trends/hierarchy-queries';
import { queryRows } from '../../shared/db/raw';
import { scopeOf, type Scope } from '../../shared/scope/scope';
import { ingest, type IngestSummary } from '../../shared/ingest/index';
import { rollupsDiffer } from '../../scripts/bench/rollups-exact';
import { hourlyBatches, MARKETS, naiveNodes, THEMES, TOPICS, world as worldLines, type NaiveNode } from '../fixtures/hierarchy-oracle';
import { createWorld, show, type World } from '../helpers/world';

/** Every step asks again at once: answers kept in the isolate would be the previous step's. */
const UNCACHED = { ISOLATE_CACHE_SECONDS: '0' };

let world: World;
let keys: { name: string; key: string; markets: string[] | null; plan: string[] | null }[];

/** Every subset of the markets with data and JP (none), and every market; each with three plans; and a plan nothing is in. */
const SUBSETS = Array.from({ length: 32 }, (_, mask) => [...MARKETS, 'JP'].filter((_, i) => mask & (1 << i)));
const SCOPES = [
  ...[null, ...SUBSETS].flatMap((markets) => [null, ['/Sports'], ['/News', '/Tech']].map((plan) => ({ markets, planCategories: plan }))),
  { markets: null, planCategories: ['/Travel'] },
];

interface Step {
  name: string;
  summary: IngestSummary;
  /** Kept tables that differ from a full rebuild. */
  differ: string[];
  /** Scopes whose answers differ from the naive reference (query module). */
  wrong: string[];
  /** Keys whose API answers differ from the naive reference. */
  wrongApi: string[];
}
const steps: Step[] = [];

const counts = (rows: (NodeRow | NaiveNode)[]) => rows.map((r) => [r.id, Number(r.n_trends), Number(r.n_articles)]);

/** The ids whose topics are asked: every theme, a topic (empty) and an unknown id (empty). */
const THEME_IDS = [...THEMES, TOPICS[2], '4e3e0000-0000-4000-8000-00000000ffff'];

/** The Scope of a key with these markets and plan categories (null: every), as the auth layer builds it. */
const keyScope = (s: { markets: string[] | null; planCategories: string[] | null }): Scope =>
  scopeOf({ projectId: null, allowedCountries: s.markets, categories: s.planCategories });

async function check(name: string, summary: IngestSummary): Promise<void> {
  const client = await world.pool().connect();
  let differ: string[];
  try {
    differ = await rollupsDiffer(client);
  } finally {
    client.release();
  }
  const wrong: string[] = [];
  for (const scope of SCOPES) {
    const label = JSON.stringify(scope);
    const themes = await listThemes(world.db, keyScope(scope));
    const want = await naiveNodes(world.db, scope.markets, scope.planCategories, 2, null);
    if (JSON.stringify(counts(themes)) !== JSON.stringify(counts(want))) wrong.push(`${label} themes`);
    for (const theme of THEMES) {
      const topics = await listTopics(world.db, keyScope(scope), theme);
      const wantTopics = await naiveNodes(world.db, scope.markets, scope.planCategories, 1, theme);
      if (JSON.stringify(counts(topics)) !== JSON.stringify(counts(wantTopics))) wrong.push(`${label} topics of ${theme}`);
    }
  }
  const wrongApi: string[] = [];
  for (const k of keys) {
    const reply = await world.call('/v1/themes', { key: k.key, env: UNCACHED });
    expect(reply.status, show(reply)).toBe(200);
    if (JSON.stringify(counts(reply.body.themes)) !== JSON.stringify(counts(await naiveNodes(world.db, k.markets, k.plan, 2, null))))
      wrongApi.push(`${k.name} themes`);
    for (const theme of THEME_IDS) {
      const topics = await world.call(`/v1/themes/${theme}/topics`, { key: k.key, env: UNCACHED });
      expect(topics.status, show(topics)).toBe(200);
      const want = await naiveNodes(world.db, k.markets, k.plan, 1, theme);
      if (JSON.stringify(counts(topics.body.topics)) !== JSON.stringify(counts(want))) wrongApi.push(`${k.name} topics of ${theme}`);
    }
  }
  steps.push({ name, summary, differ, wrong, wrongApi });
}

async function load(lines: object[], rollups: 'incremental' | 'rebuild-at-end'): Promise<IngestSummary> {
  const client = await world.pool().connect();
  try {
    const summary = await ingest(
      client,
      lines.map((l) => JSON.stringify(l)),
      { rollups },
    );
    if (summary.skipped) throw new Error(JSON.stringify(summary.errors.slice(0, 3)));
    return summary;
  } finally {
    client.release();
  }
}

beforeAll(async () => {
  world = await createWorld('hierarchy_oracle');
  const bulk = await load(worldLines(), 'rebuild-at-end');
  const plan = await world.tenant({ plan: 'grow', countries: ['US', 'GB', 'DE'], categories: ['/Sports'] });
  keys = [
    { name: 'every market', key: await world.internalKey(), markets: null, plan: null },
    { name: 'US', key: await world.internalKey(['US']), markets: ['US'], plan: null },
    { name: 'GB+DE', key: await world.internalKey(['GB', 'DE']), markets: ['GB', 'DE'], plan: null },
    { name: 'every market with data', key: await world.internalKey([...MARKETS]), markets: [...MARKETS], plan: null },
    { name: 'JP (no data)', key: await world.internalKey(['JP']), markets: ['JP'], plan: null },
    { name: 'plan /Sports in US+GB+DE', key: plan.key, markets: ['US', 'GB', 'DE'], plan: ['/Sports'] },
  ];
  await check('bulk', bulk);
  for (const [i, batch] of hourlyBatches().entries()) await check(`hour ${i + 1}`, await load(batch, 'incremental'));
}, 240_000);

describe('hierarchy counts kept at ingest', () => {
  it('after the bulk load and every hourly batch, the kept tables equal a full rebuild', () => {
    expect(steps.map((s) => [s.name, s.differ])).toEqual(['bulk', 'hour 1', 'hour 2', 'hour 3', 'hour 4'].map((n) => [n, []]));
  });

  it("every scope's themes and topics (counts and order) equal the naive reference, through the query and the API", () => {
    expect(steps.map((s) => [s.name, s.wrong, s.wrongApi])).toEqual(steps.map((s) => [s.name, [], []]));
  });

  it('the batches moved articles between signatures and nodes (what is checked is not empty)', async () => {
    for (const s of steps.slice(1)) {
      const d = s.summary.derived.hierarchy_articles;
      expect(d && d.inserted + d.updated + d.deleted, `${s.name} changed hierarchy_articles`).toBeGreaterThan(0);
    }
    // The topic that became a theme took its trends' articles out of both its old theme and itself.
    expect(steps[4].summary.derived.hierarchy_articles.deleted).toBeGreaterThan(0);
    const nonZero = await queryRows<{ n: number }>(
      world.db,
      `SELECT count(DISTINCT node_id)::int AS n FROM hierarchy_counts WHERE level = 2`,
    );
    expect(nonZero[0].n).toBeGreaterThanOrEqual(2);
    // Scopes see different counts: the checks compare more than zeros.
    const all = counts(await listThemes(world.db, keyScope({ markets: null, planCategories: null })));
    const us = counts(await listThemes(world.db, keyScope({ markets: ['US'], planCategories: null })));
    const sports = counts(await listThemes(world.db, keyScope({ markets: null, planCategories: ['/Sports'] })));
    expect(all).not.toEqual(us);
    expect(all).not.toEqual(sports);
    expect(all.some(([, , n]) => Number(n) > 5)).toBe(true);
  });

  it('loading the last batch again changes nothing', async () => {
    const batches = hourlyBatches();
    const summary = await load(batches[batches.length - 1], 'incremental');
    expect(summary.derived.hierarchy_articles ?? { inserted: 0, updated: 0, deleted: 0 }).toEqual({ inserted: 0, updated: 0, deleted: 0 });
    expect(summary.derived.hierarchy_counts ?? { inserted: 0, updated: 0, deleted: 0 }).toEqual({ inserted: 0, updated: 0, deleted: 0 });
  });
});
