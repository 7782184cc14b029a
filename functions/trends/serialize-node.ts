// Hierarchy nodes as the payloads shape them.
import type { NodeRow } from './hierarchy-queries';

export const toNode = (row: NodeRow) => ({
  id: row.id,
  level: Number(row.level),
  label: row.label,
  summary: row.summary,
  label_en: row.label_en,
  label_ru: row.label_ru,
  label_local: row.label_local,
  label_local_lang: row.label_local_lang,
  n_trends: Number(row.n_trends),
  n_articles: Number(row.n_articles),
  parent_id: row.parent_id,
  state: row.state,
});
