// The plan's chosen top-level categories as a SQL condition, for every query that lists articles:
// a category-limited project sees only articles with a category under its top levels.

/**
 * True when the article `id` (a SQL expression) has a category under one of the top levels in
 * `param` (a text[] parameter, e.g. `$9`); a NULL parameter (plans with every category) keeps all.
 */
export const inPlanCategories = (param: string, id: string) => `(${param}::text[] IS NULL OR EXISTS (
  SELECT 1 FROM article_categories pc WHERE pc.url_id = ${id} AND '/' || split_part(pc.name, '/', 2) = ANY(${param}::text[])))`;
