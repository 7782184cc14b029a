// The article conditions that listings share, as drizzle `sql` fragments over the schema: the plan's
// categories, entity refs and category paths.
import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { articleEntities, articleTops, entities } from './schema/content';

/** The tables of the conditions under the names the text forms give them (plans and tests read these names). */
const pt = alias(articleTops, 'pt');
const e = alias(entities, 'e');
const ae = alias(articleEntities, 'ae');

/**
 * True when article `id` has a category under one of the plan's top levels (null: every category keeps
 * all). A category-limited project sees only articles with a category under its top levels. Each
 * article's top levels are kept at ingest in article_tops (drizzle/0014_plan_reads.sql), so the check is
 * an array overlap on one row, never a walk over the article's categories. The planner checks it per row
 * (one primary-key probe) or hashes the plan's articles once, whichever is cheaper for the rows it
 * expects; `perRow` always checks it per row, for a walk in sort order that stops at its page, whose cost
 * must follow the page and not the table (hashing every article of a large plan first is a pass over
 * article_tops): OFFSET 0 keeps the subquery from being turned into a hashed set.
 */
export function inPlan(topCategories: readonly string[] | null, id: SQLWrapper, perRow = false): SQL {
  const tops = sql.param(topCategories);
  return sql`(${tops}::text[] IS NULL OR EXISTS (
  SELECT 1 FROM ${articleTops} ${pt} WHERE ${pt.urlId} = ${id} AND ${pt.topCategories} && ${tops}::text[]${perRow ? sql` OFFSET 0` : sql``}))`;
}

/** `path` is `filter` or lies under it, by path segment (shared/schemas/categories.ts `categoryMatches`). */
export const categoryMatch = (path: SQLWrapper, filter: SQLWrapper): SQL =>
  sql`(${path} = ${filter} OR starts_with(${path}, ${filter} || '/'))`;

/**
 * True when article `id` carries an entity of any ref (a kg_id or a name), or of every ref when `all`:
 * null keeps every article, an empty list keeps none for any and all for all (no ref left to miss). The
 * refs are resolved to entity ids once per statement, two index lookups per ref (kg_id and the normalized
 * name are both unique), never matched per row by `kg_id = ref OR normalized_name = ...`
 * (docs/SECURITY.md). Otherwise a plain `IN` (no `OR` around it), which the planner runs as a semi-join
 * or a hashed SubPlan: either way once per statement (the refs resolved to ids, then the articles
 * carrying them through article_entities' entity index), never per row.
 */
export function carriesEntities(refs: readonly string[] | null, all: boolean, id: SQLWrapper): SQL {
  if (refs === null) return sql`true`;
  if (refs.length === 0) return all ? sql`true` : sql`false`;
  const list = sql.param(refs);
  const resolved = sql`SELECT x.ref, ${e.id} FROM unnest(${list}::text[]) AS x(ref) JOIN ${entities} ${e} ON ${e.kgId} = x.ref
  UNION SELECT x.ref, ${e.id} FROM unnest(${list}::text[]) AS x(ref) JOIN ${entities} ${e} ON ${e.normalizedName} = lower(trim(x.ref))`;
  return sql`${id} IN (
        SELECT ${ae.urlId} FROM (${resolved}) r JOIN ${articleEntities} ${ae} ON ${ae.entityId} = r.id
        GROUP BY ${ae.urlId} HAVING count(DISTINCT r.ref) >= CASE WHEN ${all}::bool THEN cardinality(${list}::text[]) ELSE 1 END)`;
}
