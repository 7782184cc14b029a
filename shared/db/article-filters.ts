// The article conditions that listings share, as drizzle `sql` fragments over the schema (issue 48): the
// plan's categories, entity refs and category paths. The text forms beside them (plan-scope.ts, entity-refs.ts,
// shared/schemas/categories.ts categoryMatchSql) serve the readers still written with positional parameters; each
// fragment here says the same condition, and the comments there explain the plans they keep.
import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { articleEntities, articleTops, entities } from './schema/content';

/** The tables of the conditions under the names the text forms give them (plans and tests read these names). */
const pt = alias(articleTops, 'pt');
const e = alias(entities, 'e');
const ae = alias(articleEntities, 'ae');

/**
 * True when article `id` has a category under one of the plan's top levels (null: every category keeps
 * all): plan-scope.ts inPlanCategories, or inPlanCategoriesPerRow when `perRow` (checked per row walked).
 */
export function inPlan(topCategories: readonly string[] | null, id: SQLWrapper, perRow = false): SQL {
  const tops = sql.param(topCategories);
  return sql`(${tops}::text[] IS NULL OR EXISTS (
  SELECT 1 FROM ${articleTops} ${pt} WHERE ${pt.urlId} = ${id} AND ${pt.topCategories} && ${tops}::text[]${perRow ? sql` OFFSET 0` : sql``}))`;
}

/** `path` is `filter` or lies under it, by path segment (shared/schemas/categories.ts categoryMatchSql). */
export const categoryMatch = (path: SQLWrapper, filter: SQLWrapper): SQL =>
  sql`(${path} = ${filter} OR starts_with(${path}, ${filter} || '/'))`;

/**
 * True when article `id` carries an entity of any ref (a kg_id or a name), or of every ref when `all`:
 * entity-refs.ts matchesEntityRefs (null keeps every article; an empty list none for any, all for all).
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
