// The theme (level 2) -> topic (level 1) hierarchy with counts of the data the key may see:
// n_trends = visible trends under the node, n_articles = distinct visible articles of them.
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import type { Labels } from './labels';
import { trendVisible, type TrendScope } from './visibility';

export interface NodeRow extends Labels {
  id: string;
  level: number;
  n_trends: number;
  n_articles: number;
  parent_id: string | null;
  state: string | null;
}

/**
 * hierarchy_counts rows `c` the scope sees (docs/DATA.md "Hierarchy counts"): a visible trend of the
 * node holds the articles (their trends' markets meet $1), they surfaced in one of the markets (their
 * markets meet $1), and they have a category under the plan ($2). The tests run on the few
 * hierarchy_sets rows, the count rows are then matched by id.
 */
const seen = (markets: string, plan: string) => `
  (${markets}::text[] IS NULL OR (c.trend_set IN (SELECT id FROM markets) AND c.article_set IN (SELECT id FROM markets)))
  AND (${plan}::text[] IS NULL OR c.category_set IN (SELECT id FROM hierarchy_sets WHERE items && ${plan}::text[]))`;

/**
 * Nodes of `level` (all themes, or the topics of theme $3), each with its counts, by n_articles
 * descending. n_trends counts the ~thousands of trends live; n_articles sums the counts kept at
 * ingest (shared/ingest/hierarchy.ts). One statement.
 */
async function nodes(db: Db, scope: TrendScope, level: 1 | 2, themeId: string | null): Promise<NodeRow[]> {
  const node = level === 2 ? 'tp.parent_id' : 'tp.id';
  return queryRows<NodeRow>(
    db,
    `WITH markets AS MATERIALIZED (SELECT id FROM hierarchy_sets WHERE items && $1::text[]),
     tc AS (
       SELECT ${node} AS node, count(*)::int AS n FROM trends t JOIN hierarchy_nodes tp ON tp.id = t.topic_id AND tp.level = 1
       WHERE ${trendVisible('$1')} AND ($3::uuid IS NULL OR tp.parent_id = $3) GROUP BY 1),
     ac AS (
       SELECT c.node_id AS node, sum(c.n_articles)::int AS n FROM hierarchy_counts c
       WHERE c.level = ${level} AND ($3::uuid IS NULL OR c.node_id IN (SELECT id FROM hierarchy_nodes WHERE parent_id = $3))
         AND ${seen('$1', '$2')}
       GROUP BY 1)
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
