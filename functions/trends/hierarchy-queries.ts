// The theme (level 2) -> topic (level 1) hierarchy with counts computed from the data the key may
// see: n_trends = visible trends under the node, n_articles = distinct visible articles of them.
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import { articleVisible, trendVisible, type TrendScope } from './visibility';

export interface NodeRow {
  id: string;
  level: number;
  label: string;
  summary: string;
  label_en: string;
  label_ru: string;
  label_local: string | null;
  label_local_lang: string | null;
  n_trends: number;
  n_articles: number;
  parent_id: string | null;
  state: string | null;
}

/**
 * Nodes chosen by `where` (over hierarchy_nodes `n`), each with its counts, by n_articles
 * descending. `topics` is the SQL of the level-1 ids under `n` (a topic is its own single topic).
 */
async function nodes(db: Db, scope: TrendScope, where: string, topics: string, params: unknown[]): Promise<NodeRow[]> {
  return queryRows<NodeRow>(
    db,
    `SELECT n.id, n.level, n.label, n.summary, n.label_en, n.label_ru, n.label_local, n.label_local_lang, n.parent_id, n.state,
            c.n_trends, c.n_articles
     FROM hierarchy_nodes n
     CROSS JOIN LATERAL (
       SELECT (SELECT count(*) FROM trends t WHERE t.topic_id IN (${topics}) AND ${trendVisible('$1')})::int AS n_trends,
              (SELECT count(DISTINCT ta.url_id) FROM trends t JOIN trend_articles ta ON ta.trend_id = t.id
               WHERE t.topic_id IN (${topics}) AND ${trendVisible('$1')} AND ${articleVisible('$1', '$2', 'ta.url_id')})::int AS n_articles) c
     WHERE ${where}
     ORDER BY c.n_articles DESC, n.label, n.id`,
    [scope.markets, scope.planCategories, ...params],
  );
}

export const listThemes = (db: Db, scope: TrendScope) =>
  nodes(db, scope, 'n.level = 2', 'SELECT tp.id FROM hierarchy_nodes tp WHERE tp.parent_id = n.id AND tp.level = 1', []);

/** The topics of a theme; empty for an unknown theme (or a topic id). */
export const listTopics = (db: Db, scope: TrendScope, themeId: string) =>
  nodes(db, scope, 'n.level = 1 AND n.parent_id = $3 AND EXISTS (SELECT 1 FROM hierarchy_nodes th WHERE th.id = $3 AND th.level = 2)', 'n.id', [themeId]);
