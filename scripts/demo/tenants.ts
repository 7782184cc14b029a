// The demo's tenants: a full-access project with lists of every kind (one mention list, one list
// over 500 items), a restricted key of the same project, an internal key, and a second project.
import { eq, sql } from 'drizzle-orm';
import { createKey } from '../../shared/admin/keys';
import { createList } from '../../shared/admin/lists';
import { createProject } from '../../shared/admin/projects';
import type { Db } from '../../shared/db/client';
import { apiKeys, projects } from '../../shared/db/schema';
import { DEMO } from '../../shared/schemas/demo-ids';

export interface DemoKey {
  name: 'full' | 'restricted' | 'internal' | 'other-project';
  key: string;
  project_id: string | null;
  plan: string | null;
  countries: string[] | null;
}

const DEMO_PROJECT = 'Demo newsroom';
const OTHER_PROJECT = 'Other newsroom';
const HOUR = 3_600_000;

async function column(db: Db, query: ReturnType<typeof sql>): Promise<string[]> {
  const { rows } = (await db.execute(query)) as unknown as { rows: { v: string }[] };
  return rows.map((r) => r.v);
}

async function marketsWithData(db: Db) {
  return column(db, sql`SELECT country AS v FROM market_days GROUP BY country ORDER BY sum(impressions) DESC`);
}

async function demoLists(db: Db, projectId: string, now: Date) {
  const topEntities = await column(
    db,
    sql`SELECT e.id::text AS v FROM entities e JOIN article_entities ae ON ae.entity_id = e.id GROUP BY e.id ORDER BY count(*) DESC LIMIT 25`,
  );
  const allEntities = await column(db, sql`SELECT id::text AS v FROM entities ORDER BY normalized_name`);
  // Lists built before entity resolution keyed entities by name: the next two busiest, by name.
  const namedEntities = await column(
    db,
    sql`SELECT min(e.name) AS v FROM entities e JOIN article_entities ae ON ae.entity_id = e.id GROUP BY e.id ORDER BY count(*) DESC, e.id OFFSET 25 LIMIT 2`,
  );
  const categories = await column(db, sql`SELECT name AS v FROM article_categories GROUP BY name ORDER BY count(*) DESC LIMIT 12`);
  const publishers = await column(db, sql`SELECT domain AS v FROM articles GROUP BY domain ORDER BY count(*) DESC LIMIT 15`);
  const trends = await column(db, sql`SELECT id::text AS v FROM trends ORDER BY article_count DESC LIMIT 12`);
  const keywords = await column(
    db,
    sql`
    SELECT w AS v FROM (SELECT lower(regexp_split_to_table(title, '[^[:alpha:]]+')) AS w FROM articles) t
    WHERE length(w) >= 6 GROUP BY w ORDER BY count(*) DESC, w LIMIT 8`,
  );
  // Items are added over the last days so "newest added first" is visible.
  const added = (i: number) => new Date(now.getTime() - (i + 1) * 7 * HOUR);
  const items = (keys: string[]) => keys.map((key, i) => ({ key, addedAt: added(i) }));
  const created = (days: number) => new Date(now.getTime() - days * 24 * HOUR);

  await createList(
    db,
    {
      id: DEMO.listId,
      projectId,
      kind: 'entity',
      name: 'Watched entities',
      colorIndex: 1,
      createdAt: created(20),
      items: [
        ...items(topEntities),
        ...namedEntities.map((key, i) => ({ key, addedAt: added(25 + i) })),
        { key: 'Unresolved Person', name: 'Unresolved Person', type: 'person', addedAt: added(30) },
      ],
    },
    now,
  );
  await createList(
    db,
    { projectId, kind: 'category', name: 'Our sections', colorIndex: 2, createdAt: created(18), items: items(categories) },
    now,
  );
  await createList(
    db,
    { projectId, kind: 'publisher', name: 'Competitors', colorIndex: 3, createdAt: created(15), items: items(publishers) },
    now,
  );
  await createList(
    db,
    { projectId, kind: 'trend', name: 'Stories we follow', colorIndex: 4, createdAt: created(10), items: items(trends) },
    now,
  );
  await createList(
    db,
    {
      id: DEMO.mentionListId,
      projectId,
      kind: 'mention',
      name: 'Brand mentions',
      colorIndex: 5,
      createdAt: created(12),
      searchScope: 'title',
      countries: (await marketsWithData(db)).slice(0, 3),
      langs: [],
      terms: keywords.flatMap((keyword, i) => [
        { keyword, matchType: 'broad' as const },
        ...(i % 2 === 0 ? [{ keyword, matchType: 'exact' as const }] : []),
      ]),
    },
    now,
  );
  // Over 500 items, so /rollup answers 422 list_too_large for it.
  if (allEntities.length <= 500) throw new Error(`the demo needs more than 500 entities, it has ${allEntities.length}`);
  await createList(
    db,
    { projectId, kind: 'entity', name: 'Everything (large)', colorIndex: 6, createdAt: created(25), items: items(allEntities) },
    now,
  );
}

/** Creates the demo tenants (once) and returns fresh keys for them. */
export async function createDemoTenants(db: Db, now: Date): Promise<DemoKey[]> {
  const markets = await marketsWithData(db);
  let [demo] = await db.select().from(projects).where(eq(projects.name, DEMO_PROJECT));
  let [other] = await db.select().from(projects).where(eq(projects.name, OTHER_PROJECT));
  if (!demo) {
    demo = await createProject(db, { id: DEMO.projectId, name: DEMO_PROJECT, plan: 'scale', countries: markets });
    await demoLists(db, demo.id, now);
  }
  if (!other) {
    other = await createProject(db, { name: OTHER_PROJECT, plan: 'grow', countries: markets.slice(0, 2), categories: [] });
    const entities = await column(db, sql`SELECT id::text AS v FROM entities ORDER BY normalized_name DESC LIMIT 5`);
    await createList(db, { projectId: other.id, kind: 'entity', name: 'Their entities', items: entities.map((key) => ({ key })) }, now);
  }
  // Demo keys are re-issued on each start that lost them; old demo keys are revoked so no
  // project ever exceeds its 10 live keys.
  await db.update(apiKeys).set({ revokedAt: now }).where(sql`${apiKeys.name} LIKE 'demo-%' AND ${apiKeys.revokedAt} IS NULL`);
  const restrictedCountries = markets.slice(0, 2);
  const full = await createKey(db, { projectId: demo.id, name: 'demo-full' });
  const restricted = await createKey(db, { projectId: demo.id, name: 'demo-restricted', countries: restrictedCountries });
  const internal = await createKey(db, { projectId: null, kind: 'internal', name: 'demo-internal' });
  const otherKey = await createKey(db, { projectId: other.id, name: 'demo-other' });
  return [
    { name: 'full', key: full.key, project_id: demo.id, plan: demo.plan, countries: demo.countries },
    { name: 'restricted', key: restricted.key, project_id: demo.id, plan: demo.plan, countries: restrictedCountries },
    { name: 'internal', key: internal.key, project_id: null, plan: null, countries: null },
    { name: 'other-project', key: otherKey.key, project_id: other.id, plan: other.plan, countries: other.countries },
  ];
}
