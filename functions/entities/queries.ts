// Entity read paths. Every query takes the key's Scope (shared/scope.ts): a restricted key sees only
// occurrences on articles that surfaced in one of its countries and lie in its plan's categories.
import type { Db } from '../../shared/db/client';
import { inPlanCategories } from '../../shared/db/plan-scope';
import { queryRows } from '../../shared/db/raw';
import { categoriesParam, EVERY_MARKET_ROW, marketsParam, type Scope } from '../../shared/scope';

/**
 * Each entity's best visible occurrence (entity_best, kept at ingest). Several rows: the best of
 * them, by the order ingest uses (score, similarity, url_id). `$1` is the country list.
 * A category-limited plan (`planned`, its top levels in `$5`) sees only occurrences on articles of its
 * categories (docs/ENTITIES.md "Category-limited plans"): entity_category_best keeps the best per top
 * level, and a plan's best is the best of its top levels' rows (a max over a union is the max of the
 * parts' maxima).
 */
interface Source {
  table: string;
  /** The condition on `country`. */
  country: string;
  /** The condition on `category` (or the typed parameter alone). */
  category: string;
  /** More than one row per entity (several countries or categories). */
  many: boolean;
}

const best = (s: Source) =>
  s.many
    ? `SELECT DISTINCT ON (entity_id) entity_id, url_id, unified_score, embedding_similarity, source FROM ${s.table} WHERE ${s.country} AND ${s.category}
     ORDER BY entity_id, unified_score DESC, embedding_similarity DESC, url_id`
    : `SELECT entity_id, url_id, unified_score, embedding_similarity, source FROM ${s.table} WHERE ${s.country} AND ${s.category}`;

/**
 * Where an entity's best comes from for the key's countries. A single value is compared as one (not
 * `= ANY`), so the (country, category, score) index yields score order. Several countries: their rows,
 * or, when they hold every market with data, the '+' rows (the best among articles seen anywhere, one
 * per entity): `seen`.
 */
function sources(countries: string[] | null, planned: readonly string[] | null): { rows: Source; seen: Source | null } {
  const table = planned ? 'entity_category_best' : 'entity_best';
  const category =
    planned === null ? '$5::text[] IS NULL' : planned.length === 1 ? 'category = ($5::text[])[1]' : 'category = ANY($5::text[])';
  const manyCategories = planned !== null && planned.length !== 1;
  if (countries === null)
    return { rows: { table, country: `country = ${EVERY_MARKET_ROW} AND $1::text[] IS NULL`, category, many: manyCategories }, seen: null };
  if (countries.length === 1) return { rows: { table, country: 'country = ($1::text[])[1]', category, many: manyCategories }, seen: null };
  return {
    rows: { table, country: 'country = ANY($1::text[])', category, many: true },
    // '+': ENTITY_SEEN (shared/db/schema/entities.ts; the schema module stays off the request path).
    seen: { table, country: `country = '+'`, category, many: manyCategories },
  };
}

/**
 * No market outside the key's countries has data (market_days holds every country with a profile): the
 * articles the key sees are exactly those seen anywhere. Read in the statement itself, so it is never stale.
 */
const COVERED = `WITH cov AS MATERIALIZED (SELECT NOT EXISTS (SELECT 1 FROM market_days d WHERE d.country <> ALL($1::text[])) AS yes)`;

/** The link `ae` is visible: its article surfaced in one of the countries (null: any) and lies in the plan's categories. */
const visibleLink = (countries: string, planCategories: string) =>
  `(${countries}::text[] IS NULL OR EXISTS (SELECT 1 FROM url_profiles p WHERE p.url_id = ae.url_id AND p.country = ANY(${countries}::text[])))
    AND ${inPlanCategories(planCategories, 'ae.url_id')}`;

export interface EntityRow {
  id: string;
  name: string;
  normalized_name: string;
  unified_score: number;
  embedding_similarity: number;
  source: string;
  entity_types: string[];
  wikipedia_url: string;
  kg_id: string | null;
  kg_name: string | null;
  kg_description: string | null;
  kg_image_url: string | null;
  url_id: string;
}

const ENTITY_COLUMNS = `e.id, e.name, e.normalized_name, b.unified_score, b.embedding_similarity, b.source, e.entity_types,
  e.wikipedia_url, e.kg_id, e.kg_name, e.kg_description, e.kg_image_url, b.url_id`;

export interface ListFilter {
  /** The caller's text; case and accents are folded in SQL (search_norm). */
  search: string | null;
  entityType: string | null;
  minScore: number;
  limit: number;
  offset: number;
}

/** `%`, `_` and `\` are literal in a substring search. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export async function listEntities(db: Db, scope: Scope, f: ListFilter): Promise<{ total: number; rows: EntityRow[] }> {
  const countries = marketsParam(scope);
  const planCategories = categoriesParam(scope);
  // search_norm folds case and accents on both sides; the trigram index on search_norm(name) serves the LIKE.
  const where = `b.unified_score >= $4::float8
    AND ($2::text IS NULL OR search_norm(e.name) LIKE '%' || search_norm($2::text) || '%')
    AND ($3::text IS NULL OR $3::text = ANY(e.entity_types))`;
  const filtered = f.search !== null || f.entityType !== null;
  const from = (s: Source) => `FROM (${best(s)}) b JOIN entities e ON e.id = b.entity_id WHERE ${where}`;
  // Without a name or type filter the count needs no entity row: an index-only count of the rows.
  const count = (s: Source) =>
    filtered
      ? `(SELECT count(*) ${from(s)})`
      : `(SELECT count(${s.many ? 'DISTINCT entity_id' : '*'}) FROM ${s.table} WHERE ${s.country} AND ${s.category}
        AND unified_score >= $4::float8 AND $2::text IS NULL AND $3::text IS NULL)`;
  const order = 'ORDER BY b.unified_score DESC, e.normalized_name';
  const { rows: all, seen } = sources(countries, planCategories);
  // Several countries: both reads in one statement, each behind the coverage test; the one not taken never runs.
  const [page, total] = seen
    ? [
        `${COVERED}
       SELECT u.* FROM (
         (SELECT ${ENTITY_COLUMNS} ${from(seen)} AND (SELECT yes FROM cov) ${order} LIMIT $6::int8 + $7::int8)
         UNION ALL
         (SELECT ${ENTITY_COLUMNS} ${from(all)} AND NOT (SELECT yes FROM cov) ${order} LIMIT $6::int8 + $7::int8)) u
       ORDER BY u.unified_score DESC, u.normalized_name LIMIT $6::int8 OFFSET $7::int8`,
        `${COVERED} SELECT (CASE WHEN (SELECT yes FROM cov) THEN ${count(seen)} ELSE ${count(all)} END)::int AS total`,
      ]
    : [`SELECT ${ENTITY_COLUMNS} ${from(all)} ${order} LIMIT $6 OFFSET $7`, `SELECT ${count(all)}::int AS total`];
  const params = [countries, f.search === null ? null : likeLiteral(f.search), f.entityType, f.minScore, planCategories];
  const [rows, [counted]] = await Promise.all([
    queryRows<EntityRow>(db, page, [...params, f.limit, f.offset]),
    queryRows<{ total: number }>(db, total, params),
  ]);
  return { total: counted.total, rows };
}

/**
 * The entity by normalized name with its best visible occurrence; undefined when the key sees none
 * (a category-limited plan: none on an article of its categories, so it answers 404 like an unknown name).
 */
export async function getEntity(db: Db, scope: Scope, normalizedName: string): Promise<EntityRow | undefined> {
  const planCategories = categoriesParam(scope);
  // The entity's own rows only: a filter on the DISTINCT ON subquery was not pushed down (docs/BENCHMARKS.md "Entities").
  const occurrence = `SELECT x.url_id, x.unified_score, x.embedding_similarity, x.source FROM ${planCategories ? 'entity_category_best' : 'entity_best'} x
    WHERE x.entity_id = e.id AND CASE WHEN $1::text[] IS NULL THEN x.country = ${EVERY_MARKET_ROW} ELSE x.country = ANY($1::text[]) END
      AND ${planCategories ? 'x.category = ANY($3::text[])' : '$3::text[] IS NULL'}
    ORDER BY x.unified_score DESC, x.embedding_similarity DESC, x.url_id LIMIT 1`;
  const [row] = await queryRows<EntityRow>(
    db,
    `SELECT ${ENTITY_COLUMNS} FROM entities e JOIN LATERAL (${occurrence}) b ON true WHERE e.normalized_name = $2`,
    [marketsParam(scope), normalizedName, planCategories],
  );
  return row;
}

/** Articles of the entity the key may see: its countries and its plan's categories. */
const VISIBLE_LINKS = `FROM article_entities ae WHERE ae.entity_id = $1::uuid AND ${visibleLink('$2', '$3')}`;

export async function countArticles(db: Db, scope: Scope, entityId: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, `SELECT count(*)::int AS n ${VISIBLE_LINKS}`, [
    entityId,
    marketsParam(scope),
    categoriesParam(scope),
  ]);
  return row.n;
}

export interface EntityArticleRow {
  url_id: string;
  url: string;
  title: string;
  domain: string;
  published_at: Date | null;
  unified_score: number;
  embedding_similarity: number;
  source: string;
  summary: string;
}

export function entityArticles(db: Db, scope: Scope, entityId: string, limit: number, offset: number) {
  return queryRows<EntityArticleRow>(
    db,
    `SELECT a.id AS url_id, a.url, a.title, a.domain, a.date_published AS published_at, l.unified_score, l.embedding_similarity,
            l.source, a.summary
     FROM (SELECT ae.url_id, ae.unified_score, ae.embedding_similarity, ae.source ${VISIBLE_LINKS}
           ORDER BY ae.unified_score DESC, ae.embedding_similarity DESC, ae.url_id LIMIT $4 OFFSET $5) l
     JOIN articles a ON a.id = l.url_id
     ORDER BY l.unified_score DESC, l.embedding_similarity DESC, l.url_id`,
    [entityId, marketsParam(scope), categoriesParam(scope), limit, offset],
  );
}
