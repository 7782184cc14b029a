// The plan's chosen top-level categories as a SQL condition, for every query that lists articles:
// a category-limited project sees only articles with a category under its top levels. Each
// article's top levels are kept at ingest in article_tops (drizzle/0014_plan_reads.sql), so the
// check is an array overlap on one row, never a walk over the article's categories.

/**
 * True when the article `id` (a SQL expression) has a category under one of the top levels in
 * `param` (a text[] parameter, e.g. `$9`); a NULL parameter (plans with every category) keeps all.
 * The planner checks it per row (one primary-key probe) or hashes the plan's articles once, whichever
 * is cheaper for the rows it expects.
 */
export const inPlanCategories = (param: string, id: string) => `(${param}::text[] IS NULL OR EXISTS (
  SELECT 1 FROM article_tops pt WHERE pt.url_id = ${id} AND pt.top_categories && ${param}::text[]))`;

/**
 * The same condition, always checked per row: for a walk in sort order that stops at its page, whose
 * cost must follow the page and not the table (hashing every article of a large plan first is a pass
 * over article_tops). OFFSET 0 keeps the subquery from being turned into a hashed set.
 */
export const inPlanCategoriesPerRow = (param: string, id: string) => `(${param}::text[] IS NULL OR EXISTS (
  SELECT 1 FROM article_tops pt WHERE pt.url_id = ${id} AND pt.top_categories && ${param}::text[] OFFSET 0))`;
