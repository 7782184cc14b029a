// The theme (level 2) -> topic (level 1) hierarchy with counts of the data the key may see:
// n_trends = visible trends under the node, n_articles = distinct visible articles of them.
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import type { Labels } from './labels';
import { categoriesParam, EVERY_CATEGORY, EVERY_MARKET, EVERY_MARKET_ROW, marketsParam, type Scope } from '../../shared/scope';
import { trendVisible } from './visibility';

export interface NodeRow extends Labels {
  id: string;
  level: number;
  n_trends: number;
  n_articles: number;
  parent_id: string | null;
  state: string | null;
}

/** The nodes asked for: every node of the level, or the children of theme $3. */
const ASKED = `($3::uuid IS NULL OR c.node_id IN (SELECT id FROM hierarchy_nodes WHERE parent_id = $3))`;

/**
 * n_articles per node (`node`, `n`) from what ingest keeps (docs/DATA.md "Hierarchy counts"). Every
 * market, or one market, with every category: one hierarchy_counts row per node. Several markets
 * holding every market of the data: the `+` rows (every trend is then visible, and an article is
 * seen iff it surfaced somewhere); the data's markets are those of hierarchy_sets (category sets
 * hold `/` paths). Otherwise the hierarchy_signatures rows the scope sees: their trends' markets and
 * their own meet the key's ($1), their categories the plan's ($2), each tested once per set.
 */
function articleCounts(scope: Scope, level: 1 | 2): string {
  const kept = (market: string) =>
    `SELECT c.node_id AS node, c.n_articles AS n FROM hierarchy_counts c
     WHERE c.level = ${level} AND c.market = ${market} AND ${ASKED} AND $2::text[] IS NULL`;
  const signatures = (only = 'true') =>
    `SELECT c.node_id AS node, sum(c.n_articles)::int AS n FROM hierarchy_signatures c
     ${
       scope.markets !== EVERY_MARKET
         ? `JOIN hierarchy_sets t ON t.id = c.trend_set AND t.items && $1::text[]
       JOIN hierarchy_sets a ON a.id = c.article_set AND a.items && $1::text[]`
         : ''
     }
     ${scope.planCategories !== EVERY_CATEGORY ? 'JOIN hierarchy_sets p ON p.id = c.category_set AND p.items && $2::text[]' : ''}
     WHERE c.level = ${level} AND ${ASKED} AND ${only} GROUP BY 1`;
  if (scope.planCategories !== EVERY_CATEGORY) return signatures();
  if (scope.markets === EVERY_MARKET) return kept(EVERY_MARKET_ROW);
  if (scope.markets.length === 1) return kept('($1::text[])[1]');
  const every = `(SELECT NOT EXISTS (SELECT 1 FROM hierarchy_sets s CROSS JOIN LATERAL unnest(s.items) x
     WHERE left(x, 1) <> '/' AND x <> ALL($1::text[])))`;
  return `${kept(`'+'`)} AND ${every} UNION ALL ${signatures(`NOT ${every}`)}`;
}

/**
 * Nodes of `level` (all themes, or the topics of theme $3), each with its counts, by n_articles
 * descending. n_trends counts the ~thousands of trends live; n_articles reads the counts kept at
 * ingest (shared/ingest/hierarchy.ts). One statement.
 */
async function nodes(db: Db, scope: Scope, level: 1 | 2, themeId: string | null): Promise<NodeRow[]> {
  const node = level === 2 ? 'tp.parent_id' : 'tp.id';
  return queryRows<NodeRow>(
    db,
    `WITH tc AS (
       SELECT ${node} AS node, count(*)::int AS n FROM trends t JOIN hierarchy_nodes tp ON tp.id = t.topic_id AND tp.level = 1
       WHERE ${trendVisible('$1')} AND ($3::uuid IS NULL OR tp.parent_id = $3) GROUP BY 1),
     ac AS (${articleCounts(scope, level)})
     SELECT n.id, n.level, n.label, n.summary, n.label_en, n.label_ru, n.label_local, n.label_local_lang, n.parent_id, n.state,
            coalesce(tc.n, 0) AS n_trends, coalesce(ac.n, 0) AS n_articles
     FROM hierarchy_nodes n LEFT JOIN tc ON tc.node = n.id LEFT JOIN ac ON ac.node = n.id
     WHERE n.level = ${level} AND ($3::uuid IS NULL OR (n.parent_id = $3 AND EXISTS (SELECT 1 FROM hierarchy_nodes th WHERE th.id = $3 AND th.level = 2)))
     ORDER BY n_articles DESC, n.label, n.id`,
    [marketsParam(scope), categoriesParam(scope), themeId],
  );
}

export const listThemes = (db: Db, scope: Scope) => nodes(db, scope, 2, null);

/** The topics of a theme; empty for an unknown theme (or a topic id). */
export const listTopics = (db: Db, scope: Scope, themeId: string) => nodes(db, scope, 1, themeId);
