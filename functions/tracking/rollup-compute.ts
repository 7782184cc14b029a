// Builds the roll-up body (docs/TRACKING.md "Roll-up blocks"): whole-list top-N blocks. Impressions of the
// list's active publications grouped by another dimension exist in no roll-up, so this sums the hours
// of those publications only (bounded by the list's 500 items); big ones go through the queue.
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import { cabinetUrl, round } from '../../shared/format';
import { ceilHour } from '../../shared/rollups/buckets';
import { scopeSpans } from '../../shared/rollups/read';
import { keysParam, keysSql, type DimScope } from '../../shared/rollups/scope';
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

// $1 kind, $2 item keys (`keysSql`), $3 markets, $4 language, $5/$6 window, $7/$8 previous window.
const PUBLICATIONS = (dim: DimScope, from: string, to: string) => `
  SELECT o.url_id, sum(o.impressions)::float8 AS imps
  FROM (SELECT DISTINCT d.url_id FROM ${scopeSpans(dim, from, to)}) a
  JOIN observations o ON o.url_id = a.url_id
  WHERE o.country = ANY($3::text[]) AND ($4::text IS NULL OR o.language = $4) AND o.hour >= ${from} AND o.hour < ${to}
  GROUP BY o.url_id HAVING sum(o.impressions) > 0`;

const GROUPING = (keys: string): Record<Block, { join: string; key: string; name: string }> => ({
  publisher: {
    join: `JOIN articles x ON x.id = p.url_id LEFT JOIN publishers pb ON pb.domain = x.domain`,
    key: 'x.domain',
    name: 'coalesce(min(pb.name), x.domain)',
  },
  trend: {
    join: `JOIN trend_articles ta ON ta.url_id = p.url_id JOIN trends x ON x.id = ta.trend_id`,
    key: 'x.id::text',
    name: 'min(x.label)',
  },
  entity: {
    join: `JOIN article_entities ae ON ae.url_id = p.url_id JOIN entities x ON x.id = ae.entity_id`,
    key: 'x.id::text',
    name: 'min(x.name)',
  },
  category: { join: `JOIN article_categories x ON x.url_id = p.url_id`, key: 'x.name', name: 'min(x.name)' },
  group: {
    join: `JOIN article_categories x ON x.url_id = p.url_id`,
    key: `'/' || split_part(x.name, '/', 2)`,
    name: `min('/' || split_part(x.name, '/', 2))`,
  },
  type: {
    join: `JOIN article_entities ae ON ae.url_id = p.url_id AND ae.entity_id::text = ANY(${keys}) JOIN entities e ON e.id = ae.entity_id CROSS JOIN LATERAL unnest(e.entity_types) AS x(t)`,
    key: 'x.t',
    name: 'min(x.t)',
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
  const exclude = excludeItems ? `WHERE ${g.key} <> ALL(${keys})` : '';
  return queryRows<BlockRow>(
    db,
    `WITH cur AS (${PUBLICATIONS(q.dim, '$5::timestamptz', '$6::timestamptz')}), prev AS (${PUBLICATIONS(q.dim, '$7::timestamptz', '$8::timestamptz')}),
     c AS (SELECT ${g.key} AS key, ${g.name} AS name, count(DISTINCT p.url_id)::int AS pubs, sum(p.imps)::float8 AS imps FROM cur p ${g.join} ${exclude} GROUP BY 1),
     b AS (SELECT ${g.key} AS key, sum(p.imps)::float8 AS imps FROM prev p ${g.join} GROUP BY 1)
     SELECT c.key, c.name, c.pubs, c.imps, coalesce(b.imps, 0)::float8 AS prev_imps FROM c LEFT JOIN b USING (key)
     ORDER BY c.${rank} DESC, c.name LIMIT ${TOP}`,
    q.params,
  );
}

const delta = (r: BlockRow) => (r.prev_imps > 0 ? round(((r.imps - r.prev_imps) / r.prev_imps) * 100, 1) : null);
const withDelta = (rows: BlockRow[]) => rows.map((r) => ({ name: r.name, pubs: r.pubs, imps: r.imps, delta_pct: delta(r) }));
const plain = (rows: BlockRow[]) => rows.map((r) => ({ name: r.name, pubs: r.pubs, imps: r.imps }));
const urls = (rows: BlockRow[]) => rows.map((r) => ({ name: r.name, urls: r.pubs }));

/** A roll-up's statements share their parameters: the list's keys (resolved in SQL), the scope, both windows. */
interface Query {
  dim: DimScope;
  params: unknown[];
}

export async function computeRollup(db: Db, { list, scope, appUrl }: RollupInput) {
  // Every item's key as it resolves (entities by id or name), found by each statement itself: one wave.
  const dim: DimScope = { kind: DIMENSION_OF[list.kind], keys: pageKeys(list), keyScope: scope.keyScope, language: scope.language };
  const q: Query = {
    dim,
    params: [
      dim.kind,
      keysParam(dim),
      marketList(dim.keyScope),
      scope.language,
      ceilHour(scope.from).toISOString(),
      ceilHour(scope.to).toISOString(),
      ceilHour(scope.prevFrom).toISOString(),
      ceilHour(scope.prevTo).toISOString(),
    ],
  };
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
  const rows = await queryRows<{ id: string; url: string; title: string; domain: string; trend_id: string; imps: number }>(
    db,
    `WITH cur AS (${PUBLICATIONS(q.dim, '$5::timestamptz', '$6::timestamptz')})
     SELECT a.id::text, a.url, a.title, a.domain, min(ta.trend_id::text) AS trend_id, p.imps FROM cur p
     JOIN articles a ON a.id = p.url_id JOIN trend_articles ta ON ta.url_id = a.id AND ta.trend_id::text = ANY(${keysSql(q.dim)})
     GROUP BY a.id, a.url, a.title, a.domain, p.imps ORDER BY p.imps DESC, a.id LIMIT ${TOP}`,
    q.params.slice(0, 6),
  );
  return rows.map((r) => ({ ...r, cabinet_url: cabinetUrl(appUrl, 'article', r.id) }));
}
