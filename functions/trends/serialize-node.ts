// Hierarchy nodes as the payloads shape them.
import type { NodeRow } from './hierarchy-queries';
import { labelsOf } from './labels';

export const toNode = (row: NodeRow) => ({
  id: row.id,
  level: Number(row.level),
  ...labelsOf(row),
  n_trends: Number(row.n_trends),
  n_articles: Number(row.n_articles),
  parent_id: row.parent_id,
  state: row.state,
});
