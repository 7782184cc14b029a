// The theme (level 2) -> topic (level 1) hierarchy with counts of the data the key may see:
// n_trends = visible trends under the node, n_articles = distinct visible articles of them.
import { type GetColumnData, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import { hierarchyCounts, hierarchyNodes, hierarchySets, hierarchySignatures, trends } from '../../shared/db/schema/trends';
import type { Labels } from './labels';
import { categoriesParam, EVERY_CATEGORY, EVERY_MARKET, EVERY_MARKET_ROW, marketsParam, type Scope } from '../../shared/scope/scope';
import { trendVisible } from './visibility';

export interface NodeRow extends Labels {
  id: GetColumnData<typeof hierarchyNodes.id>;
  level: GetColumnData<typeof hierarchyNodes.level>;
  n_trends: number;
  n_articles: number;
  parent_id: GetColumnData<typeof hierarchyNodes.parentId>;
  state: GetColumnData<typeof hierarchyNodes.state>;
}

/** The nodes asked for: every node of the level, or the children of theme `themeId`. */
const asked = (node: SQL, themeId: string | null) =>
  sql`(${themeId}::uuid IS NULL OR ${node} IN (SELECT ${hierarchyNodes.id} FROM ${hierarchyNodes} WHERE ${hierarchyNodes.parentId} = ${themeId}))`;

/** The sets a signature row names, by role: its trends' markets, its articles' markets, its categories. */
const trendSet = alias(hierarchySets, 't');
const articleSet = alias(hierarchySets, 'a');
const categorySet = alias(hierarchySets, 'p');

/**
 * n_articles per node (`node`, `n`) from what ingest keeps (docs/DATA.md "Hierarchy counts"). Every
 * market, or one market, with every category: one hierarchy_counts row per node. Several markets
 * holding every market of the data: the `+` rows (every trend is then visible, and an article is
 * seen iff it surfaced somewhere); the data's markets are those of hierarchy_sets (category sets
 * hold `/` paths). Otherwise the hierarchy_signatures rows the scope sees: their trends' markets and
 * their own meet the key's, their categories the plan's, each tested once per set.
 */
function articleCounts(scope: Scope, level: 1 | 2, themeId: string | null): SQL {
  const markets = sql.param(marketsParam(scope));
  const tops = sql.param(categoriesParam(scope));
  const c = hierarchyCounts;
  const kept = (market: SQL) =>
    sql`SELECT ${c.nodeId} AS node, ${c.nArticles} AS n FROM ${c}
     WHERE ${c.level} = ${sql.raw(String(level))} AND ${c.market} = ${market} AND ${asked(sql`${c.nodeId}`, themeId)} AND ${tops}::text[] IS NULL`;
  const sg = hierarchySignatures;
  const signatures = (only: SQL = sql`true`) =>
    sql`SELECT ${sg.nodeId} AS node, sum(${sg.nArticles})::int AS n FROM ${sg}
     ${
       scope.markets !== EVERY_MARKET
         ? sql`JOIN ${hierarchySets} ${trendSet} ON ${trendSet.id} = ${sg.trendSet} AND ${trendSet.items} && ${markets}::text[]
       JOIN ${hierarchySets} ${articleSet} ON ${articleSet.id} = ${sg.articleSet} AND ${articleSet.items} && ${markets}::text[]`
         : sql``
     }
     ${
       scope.planCategories !== EVERY_CATEGORY
         ? sql`JOIN ${hierarchySets} ${categorySet} ON ${categorySet.id} = ${sg.categorySet} AND ${categorySet.items} && ${tops}::text[]`
         : sql``
     }
     WHERE ${sg.level} = ${sql.raw(String(level))} AND ${asked(sql`${sg.nodeId}`, themeId)} AND ${only} GROUP BY 1`;
  if (scope.planCategories !== EVERY_CATEGORY) return signatures();
  if (scope.markets === EVERY_MARKET) return kept(sql.raw(EVERY_MARKET_ROW));
  if (scope.markets.length === 1) return kept(sql`(${markets}::text[])[1]`);
  const every = sql`(SELECT NOT EXISTS (SELECT 1 FROM ${hierarchySets} CROSS JOIN LATERAL unnest(${hierarchySets.items}) x
     WHERE left(x, 1) <> '/' AND x <> ALL(${markets}::text[])))`;
  return sql`${kept(sql.raw(`'+'`))} AND ${every} UNION ALL ${signatures(sql`NOT ${every}`)}`;
}

/** The trend `t`, the topic `tp` it belongs to, a node `n` and the theme `th` asked for. */
const t = alias(trends, 't');
const tp = alias(hierarchyNodes, 'tp');
const n = alias(hierarchyNodes, 'n');
const th = alias(hierarchyNodes, 'th');

/**
 * Nodes of `level` (all themes, or the topics of theme `themeId`), each with its counts, by n_articles
 * descending. n_trends counts the ~thousands of trends live; n_articles reads the counts kept at
 * ingest (shared/trends/write-hierarchy.ts). One statement.
 */
async function nodes(db: Db, scope: Scope, level: 1 | 2, themeId: string | null): Promise<NodeRow[]> {
  const node = level === 2 ? tp.parentId : tp.id;
  const lvl = sql.raw(String(level));
  return sqlRows<NodeRow>(
    db,
    sql`WITH tc AS (
       SELECT ${node} AS node, count(*)::int AS n FROM ${trends} ${t} JOIN ${hierarchyNodes} ${tp} ON ${tp.id} = ${t.topicId} AND ${tp.level} = 1
       WHERE ${trendVisible(scope, t)} AND (${themeId}::uuid IS NULL OR ${tp.parentId} = ${themeId}) GROUP BY 1),
     ac AS (${articleCounts(scope, level, themeId)})
     SELECT ${n.id}, ${n.level}, ${n.label}, ${n.summary}, ${n.labelEn}, ${n.labelRu}, ${n.labelLocal}, ${n.labelLocalLang}, ${n.parentId}, ${n.state},
            coalesce(tc.n, 0) AS n_trends, coalesce(ac.n, 0) AS n_articles
     FROM ${hierarchyNodes} ${n} LEFT JOIN tc ON tc.node = ${n.id} LEFT JOIN ac ON ac.node = ${n.id}
     WHERE ${n.level} = ${lvl} AND (${themeId}::uuid IS NULL OR (${n.parentId} = ${themeId}
       AND EXISTS (SELECT 1 FROM ${hierarchyNodes} ${th} WHERE ${th.id} = ${themeId} AND ${th.level} = 2)))
     ORDER BY n_articles DESC, ${n.label}, ${n.id}`,
  );
}

export const listThemes = (db: Db, scope: Scope) => nodes(db, scope, 2, null);

/** The topics of a theme; empty for an unknown theme (or a topic id). */
export const listTopics = (db: Db, scope: Scope, themeId: string) => nodes(db, scope, 1, themeId);
