// Builds the roll-up body (docs/TRACKING.md "Roll-up blocks"): whole-list top-N blocks. Impressions of the
// list's active publications grouped by another dimension exist in no roll-up, so this sums the hours
// of those publications only (bounded by the list's 500 items); big ones go through the queue.
import { type GetColumnData, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import { articleCategories, articleEntities, articles, entities, observations, publishers } from '../../shared/db/schema/content';
import { trendArticles, trends } from '../../shared/db/schema/trends';
import { cabinetUrl, round } from '../../shared/format';
import { hourWindow, type SqlWindow } from '../../shared/rollups/buckets';
import { d, scopeSpans } from '../../shared/rollups/read';
import { keysSql, type DimScope } from '../../shared/rollups/scope';
import { DIMENSION_OF, pageKeys } from './items';
import type { ListRow } from './queries';
import { marketList } from '../../shared/scope/scope';
import { scopeBody, type AggregateWindow } from '../../shared/scope/window-scope';

export const ROLLUP_MAX_ITEMS = 500;
const TOP = 10;

export interface RollupInput {
  list: ListRow;
  scope: AggregateWindow;
  appUrl: string;
}

type Block = 'publisher' | 'trend' | 'entity' | 'category' | 'type' | 'group';
/** Per block: how a publication maps to the grouping key; `name` is an aggregate, so GROUP BY the key alone. */

const o = alias(observations, 'o');
const a = alias(articles, 'a');

/** The list's publications with impressions in the window `w` (whole hours), in the scope's markets and language. */
const PUBLICATIONS = (dim: DimScope, w: SqlWindow) => sql`
  SELECT ${o.urlId}, sum(${o.impressions})::float8 AS imps
  FROM (SELECT DISTINCT ${d.urlId} FROM ${scopeSpans(dim, w)}) a
  JOIN ${observations} ${o} ON ${o.urlId} = a.url_id
  WHERE ${o.country} = ANY(${sql.param(marketList(dim.keyScope))}::text[]) AND (${dim.language}::text IS NULL OR ${o.language} = ${dim.language}::text)
    AND ${o.hour} >= ${w.from} AND ${o.hour} < ${w.to}
  GROUP BY ${o.urlId} HAVING sum(${o.impressions}) > 0`;

/** Each block's grouped table is `x` (plans read these names); `pb`, `ta`, `ae`, `e` what it joins through. */
const xArticle = alias(articles, 'x');
const xTrend = alias(trends, 'x');
const xEntity = alias(entities, 'x');
const xCategory = alias(articleCategories, 'x');
const pb = alias(publishers, 'pb');
const ta = alias(trendArticles, 'ta');
const ae = alias(articleEntities, 'ae');
const e = alias(entities, 'e');

const GROUPING = (keys: SQL): Record<Block, { join: SQL; key: SQL; name: SQL }> => ({
  publisher: {
    join: sql`JOIN ${articles} ${xArticle} ON ${xArticle.id} = p.url_id LEFT JOIN ${publishers} ${pb} ON ${pb.domain} = ${xArticle.domain}`,
    key: sql`${xArticle.domain}`,
    name: sql`coalesce(min(${pb.name}), ${xArticle.domain})`,
  },
  trend: {
    join: sql`JOIN ${trendArticles} ${ta} ON ${ta.urlId} = p.url_id JOIN ${trends} ${xTrend} ON ${xTrend.id} = ${ta.trendId}`,
    key: sql`${xTrend.id}::text`,
    name: sql`min(${xTrend.label})`,
  },
  entity: {
    join: sql`JOIN ${articleEntities} ${ae} ON ${ae.urlId} = p.url_id JOIN ${entities} ${xEntity} ON ${xEntity.id} = ${ae.entityId}`,
    key: sql`${xEntity.id}::text`,
    name: sql`min(${xEntity.name})`,
  },
  category: {
    join: sql`JOIN ${articleCategories} ${xCategory} ON ${xCategory.urlId} = p.url_id`,
    key: sql`${xCategory.name}`,
    name: sql`min(${xCategory.name})`,
  },
  group: {
    join: sql`JOIN ${articleCategories} ${xCategory} ON ${xCategory.urlId} = p.url_id`,
    key: sql`'/' || split_part(${xCategory.name}, '/', 2)`,
    name: sql`min('/' || split_part(${xCategory.name}, '/', 2))`,
  },
  type: {
    join: sql`JOIN ${articleEntities} ${ae} ON ${ae.urlId} = p.url_id AND ${ae.entityId}::text = ANY(${keys}) JOIN ${entities} ${e} ON ${e.id} = ${ae.entityId} CROSS JOIN LATERAL unnest(${e.entityTypes}) AS x(t)`,
    key: sql.raw('x.t'),
    name: sql.raw('min(x.t)'),
  },
});

interface BlockRow {
  key: string;
  name: string;
  pubs: number;
  imps: number;
  prev_imps: number;
}

/** `rank`: impressions, or publications for blocks that show only `urls` (mention lists: rank by what is shown). */
async function block(db: Db, q: Query, by: Block, excludeItems = false, rank: 'imps' | 'pubs' = 'imps'): Promise<BlockRow[]> {
  const keys = keysSql(q.dim);
  const g = GROUPING(keys)[by];
  const exclude = excludeItems ? sql`WHERE ${g.key} <> ALL(${keys})` : sql``;
  return sqlRows<BlockRow>(
    db,
    sql`WITH cur AS (${PUBLICATIONS(q.dim, q.cur)}), prev AS (${PUBLICATIONS(q.dim, q.prev)}),
     c AS (SELECT ${g.key} AS key, ${g.name} AS name, count(DISTINCT p.url_id)::int AS pubs, sum(p.imps)::float8 AS imps FROM cur p ${g.join} ${exclude} GROUP BY 1),
     b AS (SELECT ${g.key} AS key, sum(p.imps)::float8 AS imps FROM prev p ${g.join} GROUP BY 1)
     SELECT c.key, c.name, c.pubs, c.imps, coalesce(b.imps, 0)::float8 AS prev_imps FROM c LEFT JOIN b USING (key)
     ORDER BY c.${sql.raw(rank)} DESC, c.name LIMIT ${sql.raw(String(TOP))}`,
  );
}

const delta = (r: BlockRow) => (r.prev_imps > 0 ? round(((r.imps - r.prev_imps) / r.prev_imps) * 100, 1) : null);
const withDelta = (rows: BlockRow[]) => rows.map((r) => ({ name: r.name, pubs: r.pubs, imps: r.imps, delta_pct: delta(r) }));
const plain = (rows: BlockRow[]) => rows.map((r) => ({ name: r.name, pubs: r.pubs, imps: r.imps }));
const urls = (rows: BlockRow[]) => rows.map((r) => ({ name: r.name, urls: r.pubs }));

/** What a roll-up's statements share: the list's keys (resolved in SQL) in the scope, and both windows. */
interface Query {
  dim: DimScope;
  cur: SqlWindow;
  prev: SqlWindow;
}

export async function computeRollup(db: Db, { list, scope, appUrl }: RollupInput) {
  // Every item's key as it resolves (entities by id or name), found by each statement itself: one wave.
  const dim: DimScope = { kind: DIMENSION_OF[list.kind], keys: pageKeys(list), keyScope: scope.keyScope, language: scope.language };
  const q: Query = { dim, cur: hourWindow(scope.from, scope.to), prev: hourWindow(scope.prevFrom, scope.prevTo) };
  const head = { list_id: list.id, kind: list.kind, scope: scopeBody(scope) };
  switch (list.kind) {
    case 'entity': {
      const [publishers, trends, related, groups, types] = await Promise.all([
        block(db, q, 'publisher'),
        block(db, q, 'trend'),
        block(db, q, 'entity', true),
        block(db, q, 'group'),
        block(db, q, 'type'),
      ]);
      return {
        ...head,
        item_count: list.item_count,
        publishers: withDelta(publishers),
        trends: trends.map((r) => ({ id: r.key, name: r.name, pubs: r.pubs, imps: r.imps, delta_pct: delta(r) })),
        related: related.map((r) => ({ name: r.name, entity_id: r.key, pubs: r.pubs, imps: r.imps })),
        groups: plain(groups),
        types: plain(types),
      };
    }
    case 'mention': {
      const [publishers, entities, categories] = await Promise.all([
        block(db, q, 'publisher', false, 'pubs'),
        block(db, q, 'entity', false, 'pubs'),
        block(db, q, 'category', false, 'pubs'),
      ]);
      return { ...head, publishers: urls(publishers), entities: urls(entities), categories: urls(categories) };
    }
    case 'category': {
      const [publishers, trends, entities] = await Promise.all([block(db, q, 'publisher'), block(db, q, 'trend'), block(db, q, 'entity')]);
      return {
        ...head,
        item_count: list.item_count,
        publishers: withDelta(publishers),
        trends: trends.map((r) => ({ id: r.key, ...withDelta([r])[0] })),
        entities: plain(entities),
      };
    }
    case 'publisher': {
      const [categories, trends, entities] = await Promise.all([block(db, q, 'category'), block(db, q, 'trend'), block(db, q, 'entity')]);
      return {
        ...head,
        item_count: list.item_count,
        categories: withDelta(categories),
        trends: trends.map((r) => ({ id: r.key, ...withDelta([r])[0] })),
        entities: plain(entities),
      };
    }
    case 'trend': {
      const [publishers, entities, categories, top] = await Promise.all([
        block(db, q, 'publisher'),
        block(db, q, 'entity'),
        block(db, q, 'category'),
        topArticles(db, q, appUrl),
      ]);
      return {
        ...head,
        item_count: list.item_count,
        publishers: withDelta(publishers),
        entities: plain(entities),
        categories: plain(categories),
        top_articles: top,
      };
    }
  }
}

async function topArticles(db: Db, q: Query, appUrl: string) {
  const rows = await sqlRows<{
    id: string;
    url: GetColumnData<typeof articles.url>;
    title: GetColumnData<typeof articles.title>;
    domain: GetColumnData<typeof articles.domain>;
    trend_id: string;
    imps: number;
  }>(
    db,
    sql`WITH cur AS (${PUBLICATIONS(q.dim, q.cur)})
     SELECT ${a.id}::text, ${a.url}, ${a.title}, ${a.domain}, min(${ta.trendId}::text) AS trend_id, p.imps FROM cur p
     JOIN ${articles} ${a} ON ${a.id} = p.url_id JOIN ${trendArticles} ${ta} ON ${ta.urlId} = ${a.id} AND ${ta.trendId}::text = ANY(${keysSql(q.dim)})
     GROUP BY ${a.id}, ${a.url}, ${a.title}, ${a.domain}, p.imps ORDER BY p.imps DESC, ${a.id} LIMIT ${sql.raw(String(TOP))}`,
  );
  return rows.map((r) => ({ ...r, cabinet_url: cabinetUrl(appUrl, 'article', r.id) }));
}
