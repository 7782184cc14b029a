// Entity refs (a kg_id or a name) of the feed and articles filters, resolved to entity ids once per
// statement, never matched per row by `kg_id = ref OR normalized_name = ...` (docs/SECURITY.md).

/**
 * The (ref, entity id) pairs the refs in `refs` (a text[] parameter, e.g. `$7`) name: each ref matches
 * an entity by kg_id or by its normalized name. Two index lookups per ref (both columns are unique).
 */
const resolved = (refs: string) => `SELECT x.ref, e.id FROM unnest(${refs}::text[]) AS x(ref) JOIN entities e ON e.kg_id = x.ref
  UNION SELECT x.ref, e.id FROM unnest(${refs}::text[]) AS x(ref) JOIN entities e ON e.normalized_name = lower(trim(x.ref))`;

/**
 * True when article `id` (a SQL expression) carries an entity of any ref in `refs`, or of every ref when
 * `all` (a bool parameter). `list` is the refs the parameter holds: null keeps every article (the condition
 * only types the parameters), an empty list keeps none for `any` and all for `all` (no ref left to miss).
 * Otherwise a plain `IN` (no `OR` around it), which the planner runs as a semi-join or a hashed SubPlan:
 * either way once per statement (the refs resolved to ids, then the articles carrying them through
 * article_entities' entity index), never per row.
 */
export const matchesEntityRefs = (refs: string, all: string, id: string, list: readonly string[] | null) => {
  if (list === null) return `(${refs}::text[] IS NULL AND ${all}::bool IS NOT NULL)`;
  if (list.length === 0) return `(cardinality(${refs}::text[]) = 0 AND ${all}::bool)`;
  return `${id} IN (
        SELECT ae.url_id FROM (${resolved(refs)}) r JOIN article_entities ae ON ae.entity_id = r.id
        GROUP BY ae.url_id HAVING count(DISTINCT r.ref) >= CASE WHEN ${all}::bool THEN cardinality(${refs}::text[]) ELSE 1 END)`;
};
