// The plan's chosen top-level categories as a SQL condition, for every query that lists articles:
// a category-limited project sees only articles with a category under its top levels. Each
// article's top levels are kept at ingest in article_tops (drizzle/0014_plan_reads.sql), so the
// check is an array overlap on one row, never a walk over the article's categories.

/**
 * True when the article `id` (a SQL expression) has a category under one of the top levels in
 * `param` (a text[] parameter, e.g. `$9`); a NULL parameter (plans with every category) keeps all.
 * Per row (one primary-key probe): for conditions on a few rows, or where the caller's parameter may be either.
 */
export const inPlanCategories = (param: string, id: string) => `(${param}::text[] IS NULL OR EXISTS (
  SELECT 1 FROM article_tops pt WHERE pt.url_id = ${id} AND pt.top_categories && ${param}::text[]))`;

/**
 * The same condition when the caller knows the plan (`categories`, what `param` holds): no condition
 * for every category (the parameter is only typed), else a plain `IN` that the planner estimates from
 * the column's statistics and runs as a semi-join (a walk in sort order probes it per row, a count
 * hashes it once).
 */
export const planFilter = (param: string, id: string, categories: readonly string[] | null) =>
  categories === null
    ? `${param}::text[] IS NULL`
    : `${id} IN (SELECT pt.url_id FROM article_tops pt WHERE pt.top_categories && ${param}::text[])`;
