// The theme (level 2) -> topic (level 1) hierarchy with counts computed from the data the key may
// see: n_trends = visible trends under the node, n_articles = distinct visible articles of them.
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import type { Labels } from './labels';
import { articleVisible, trendVisible, type TrendScope } from './visibility';

export interface NodeRow extends Labels {
  id: string;
  level: number;
  n_trends: number;
  n_articles: number;
  parent_id: string | null;
  state: string | null;
}

/**
 * Nodes of `level` (all themes, or the topics of theme $3), each with its counts, by n_articles
 * descending. One pass: the visible trends under the chosen nodes, then their distinct visible
 * articles per node (hash aggregates over the assignments), joined back to the nodes.
 */
async function nodes(db: Db, scope: TrendScope, level: 1 | 2, themeId: string | null): Promise<NodeRow[]> {
  const node = level === 2 ? 'tp.parent_id' : 'tp.id';
  return queryRows<NodeRow>(
    db,
    `WITH vt AS (
       SELECT t.id, ${node} AS node FROM trends t JOIN hierarchy_nodes tp ON tp.id = t.topic_id AND tp.level = 1
       WHERE ${trendVisible('$1')} AND ($3::uuid IS NULL OR tp.parent_id = $3)),
     va AS (
       SELECT DISTINCT vt.node, ta.url_id FROM vt JOIN trend_articles ta ON ta.trend_id = vt.id
       WHERE ${articleVisible('$1', '$2', 'ta.url_id')}),
     tc AS (SELECT node, count(*)::int AS n FROM vt GROUP BY node),
     ac AS (SELECT node, count(*)::int AS n FROM va GROUP BY node)
     SELECT n.id, n.level, n.label, n.summary, n.label_en, n.label_ru, n.label_local, n.label_local_lang, n.parent_id, n.state,
            coalesce(tc.n, 0) AS n_trends, coalesce(ac.n, 0) AS n_articles
     FROM hierarchy_nodes n LEFT JOIN tc ON tc.node = n.id LEFT JOIN ac ON ac.node = n.id
     WHERE n.level = ${level} AND ($3::uuid IS NULL OR (n.parent_id = $3 AND EXISTS (SELECT 1 FROM hierarchy_nodes th WHERE th.id = $3 AND th.level = 2)))
     ORDER BY n_articles DESC, n.label, n.id`,
    [scope.markets, scope.planCategories, themeId],
  );
}

export const listThemes = (db: Db, scope: TrendScope) => nodes(db, scope, 2, null);

/** The topics of a theme; empty for an unknown theme (or a topic id). */
export const listTopics = (db: Db, scope: TrendScope, themeId: string) => nodes(db, scope, 1, themeId);
