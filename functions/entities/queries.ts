// Entity read paths. Every query takes the key's Scope (shared/scope/scope.ts): a restricted key sees only
// occurrences on articles that surfaced in one of its countries and lie in its plan's categories.
import { type GetColumnData, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { inPlan } from '../../shared/db/article-filters';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import { articleEntities, articles, entities, marketDays, urlProfiles } from '../../shared/db/schema/content';
import { entityBest, entityCategoryBest } from '../../shared/db/schema/entities';
import { categoriesParam, EVERY_MARKET_ROW, marketsParam, type Scope } from '../../shared/scope/scope';

/**
 * Each entity's best visible occurrence (entity_best, kept at ingest). Several rows: the best of
 * them, by the order ingest uses (score, similarity, url_id). `$1` is the country list.
 * A category-limited plan (`planned`, its top levels in `$5`) sees only occurrences on articles of its
 * categories (docs/ENTITIES.md "Category-limited plans"): entity_category_best keeps the best per top
 * level, and a plan's best is the best of its top levels' rows (a max over a union is the max of the
 * parts' maxima).
 */
interface Source {
  table: typeof entityBest | typeof entityCategoryBest;
  /** The condition on `country`. */
  country: SQL;
  /** The condition on `category` (or the typed parameter alone). */
  category: SQL;
  /** More than one row per entity (several countries or categories). */
  many: boolean;
}

const best = ({ table: t, country, category, many }: Source) =>
  many
    ? sql`SELECT DISTINCT ON (${t.entityId}) ${t.entityId}, ${t.urlId}, ${t.unifiedScore}, ${t.embeddingSimilarity}, ${t.source} FROM ${t}
     WHERE ${country} AND ${category}
     ORDER BY ${t.entityId}, ${t.unifiedScore} DESC, ${t.embeddingSimilarity} DESC, ${t.urlId}`
    : sql`SELECT ${t.entityId}, ${t.urlId}, ${t.unifiedScore}, ${t.embeddingSimilarity}, ${t.source} FROM ${t} WHERE ${country} AND ${category}`;

/**
 * Where an entity's best comes from for the key's countries. A single value is compared as one (not
 * `= ANY`), so the (country, category, score) index yields score order. Several countries: their rows,
 * or, when they hold every market with data, the '+' rows (the best among articles seen anywhere, one
 * per entity): `seen`.
 */
function sources(countries: string[] | null, planned: readonly string[] | null): { rows: Source; seen: Source | null } {
  const table = planned ? entityCategoryBest : entityBest;
  const tops = sql.param(planned);
  const category =
    planned === null
      ? sql`${tops}::text[] IS NULL`
      : planned.length === 1
        ? sql`${entityCategoryBest.category} = (${tops}::text[])[1]`
        : sql`${entityCategoryBest.category} = ANY(${tops}::text[])`;
  const manyCategories = planned !== null && planned.length !== 1;
  const markets = sql.param(countries);
  if (countries === null)
    return {
      rows: {
        table,
        country: sql`${table.country} = ${sql.raw(EVERY_MARKET_ROW)} AND ${markets}::text[] IS NULL`,
        category,
        many: manyCategories,
      },
      seen: null,
    };
  if (countries.length === 1)
    return { rows: { table, country: sql`${table.country} = (${markets}::text[])[1]`, category, many: manyCategories }, seen: null };
  return {
    rows: { table, country: sql`${table.country} = ANY(${markets}::text[])`, category, many: true },
    // '+': ENTITY_SEEN (shared/db/schema/entities.ts).
    seen: { table, country: sql`${table.country} = '+'`, category, many: manyCategories },
  };
}

/**
 * No market outside the key's countries has data (market_days holds every country with a profile): the
 * articles the key sees are exactly those seen anywhere. Read in the statement itself, so it is never stale.
 */
const covered = (countries: string[] | null) =>
  sql`WITH cov AS MATERIALIZED (SELECT NOT EXISTS (SELECT 1 FROM ${marketDays} WHERE ${marketDays.country} <> ALL(${sql.param(countries)}::text[])) AS yes)`;

/** The entity `e`, its best occurrence `b` (a row of entity_best's columns), an occurrence `x` of one entity, a link `ae`, a profile `p`. */
const e = alias(entities, 'e');
const b = alias(entityBest, 'b');
const x = alias(entityBest, 'x');
const xCategory = alias(entityCategoryBest, 'x');
const ae = alias(articleEntities, 'ae');
const p = alias(urlProfiles, 'p');
const a = alias(articles, 'a');

export interface EntityRow {
  id: GetColumnData<typeof entities.id>;
  name: GetColumnData<typeof entities.name>;
  normalized_name: GetColumnData<typeof entities.normalizedName>;
  unified_score: GetColumnData<typeof entityBest.unifiedScore>;
  embedding_similarity: GetColumnData<typeof entityBest.embeddingSimilarity>;
  source: GetColumnData<typeof entityBest.source>;
  entity_types: GetColumnData<typeof entities.entityTypes>;
  wikipedia_url: GetColumnData<typeof entities.wikipediaUrl>;
  kg_id: GetColumnData<typeof entities.kgId>;
  kg_name: GetColumnData<typeof entities.kgName>;
  kg_description: GetColumnData<typeof entities.kgDescription>;
  kg_image_url: GetColumnData<typeof entities.kgImageUrl>;
  url_id: GetColumnData<typeof entityBest.urlId>;
}

const ENTITY_COLUMNS = sql`${e.id}, ${e.name}, ${e.normalizedName}, ${b.unifiedScore}, ${b.embeddingSimilarity}, ${b.source}, ${e.entityTypes},
  ${e.wikipediaUrl}, ${e.kgId}, ${e.kgName}, ${e.kgDescription}, ${e.kgImageUrl}, ${b.urlId}`;

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
  const search = f.search === null ? null : likeLiteral(f.search);
  // search_norm folds case and accents on both sides; the trigram index on search_norm(name) serves the LIKE.
  const where = sql`${b.unifiedScore} >= ${f.minScore}::float8
    AND (${search}::text IS NULL OR search_norm(${e.name}) LIKE '%' || search_norm(${search}::text) || '%')
    AND (${f.entityType}::text IS NULL OR ${f.entityType}::text = ANY(${e.entityTypes}))`;
  const filtered = f.search !== null || f.entityType !== null;
  const from = (s: Source) => sql`FROM (${best(s)}) ${b} JOIN ${entities} ${e} ON ${e.id} = ${b.entityId} WHERE ${where}`;
  // Without a name or type filter the count needs no entity row: an index-only count of the rows.
  const count = (s: Source) =>
    filtered
      ? sql`(SELECT count(*) ${from(s)})`
      : sql`(SELECT count(${s.many ? sql`DISTINCT ${s.table.entityId}` : sql`*`}) FROM ${s.table} WHERE ${s.country} AND ${s.category}
        AND ${s.table.unifiedScore} >= ${f.minScore}::float8 AND ${search}::text IS NULL AND ${f.entityType}::text IS NULL)`;
  const order = sql`ORDER BY ${b.unifiedScore} DESC, ${e.normalizedName}`;
  const { rows: all, seen } = sources(countries, categoriesParam(scope));
  // Several countries: both reads in one statement, each behind the coverage test; the one not taken never runs.
  const [page, total] = seen
    ? [
        sql`${covered(countries)}
       SELECT u.* FROM (
         (SELECT ${ENTITY_COLUMNS} ${from(seen)} AND (SELECT yes FROM cov) ${order} LIMIT ${f.limit}::int8 + ${f.offset}::int8)
         UNION ALL
         (SELECT ${ENTITY_COLUMNS} ${from(all)} AND NOT (SELECT yes FROM cov) ${order} LIMIT ${f.limit}::int8 + ${f.offset}::int8)) u
       ORDER BY u.unified_score DESC, u.normalized_name LIMIT ${f.limit}::int8 OFFSET ${f.offset}::int8`,
        sql`${covered(countries)} SELECT (CASE WHEN (SELECT yes FROM cov) THEN ${count(seen)} ELSE ${count(all)} END)::int AS total`,
      ]
    : [sql`SELECT ${ENTITY_COLUMNS} ${from(all)} ${order} LIMIT ${f.limit} OFFSET ${f.offset}`, sql`SELECT ${count(all)}::int AS total`];
  const [rows, [counted]] = await Promise.all([sqlRows<EntityRow>(db, page), sqlRows<{ total: number }>(db, total)]);
  return { total: counted.total, rows };
}

/**
 * The entity by normalized name with its best visible occurrence; undefined when the key sees none
 * (a category-limited plan: none on an article of its categories, so it answers 404 like an unknown name).
 */
export async function getEntity(db: Db, scope: Scope, normalizedName: string): Promise<EntityRow | undefined> {
  const planCategories = categoriesParam(scope);
  const markets = sql.param(marketsParam(scope));
  const o = planCategories ? xCategory : x;
  // The entity's own rows only: a filter on the DISTINCT ON subquery was not pushed down (docs/BENCHMARKS.md "Entities").
  const occurrence = sql`SELECT ${o.urlId}, ${o.unifiedScore}, ${o.embeddingSimilarity}, ${o.source} FROM ${planCategories ? entityCategoryBest : entityBest} ${o}
    WHERE ${o.entityId} = ${e.id} AND CASE WHEN ${markets}::text[] IS NULL THEN ${o.country} = ${sql.raw(EVERY_MARKET_ROW)} ELSE ${o.country} = ANY(${markets}::text[]) END
      AND ${planCategories ? sql`${xCategory.category} = ANY(${sql.param(planCategories)}::text[])` : sql`${planCategories}::text[] IS NULL`}
    ORDER BY ${o.unifiedScore} DESC, ${o.embeddingSimilarity} DESC, ${o.urlId} LIMIT 1`;
  const [row] = await sqlRows<EntityRow>(
    db,
    sql`SELECT ${ENTITY_COLUMNS} FROM ${entities} ${e} JOIN LATERAL (${occurrence}) ${b} ON true WHERE ${e.normalizedName} = ${normalizedName}`,
  );
  return row;
}

/** Links `ae` of the entity to articles the key may see: its countries and its plan's categories. */
function visibleLinks(scope: Scope, entityId: string): SQL {
  const markets = sql.param(marketsParam(scope));
  return sql`FROM ${articleEntities} ${ae} WHERE ${ae.entityId} = ${entityId}::uuid
    AND (${markets}::text[] IS NULL OR EXISTS (SELECT 1 FROM ${urlProfiles} ${p} WHERE ${p.urlId} = ${ae.urlId} AND ${p.country} = ANY(${markets}::text[])))
    AND ${inPlan(categoriesParam(scope), ae.urlId)}`;
}

export async function countArticles(db: Db, scope: Scope, entityId: string): Promise<number> {
  const [row] = await sqlRows<{ n: number }>(db, sql`SELECT count(*)::int AS n ${visibleLinks(scope, entityId)}`);
  return row.n;
}

export interface EntityArticleRow {
  url_id: GetColumnData<typeof articles.id>;
  url: GetColumnData<typeof articles.url>;
  title: GetColumnData<typeof articles.title>;
  domain: GetColumnData<typeof articles.domain>;
  published_at: Date | null;
  unified_score: GetColumnData<typeof articleEntities.unifiedScore>;
  embedding_similarity: GetColumnData<typeof articleEntities.embeddingSimilarity>;
  source: GetColumnData<typeof articleEntities.source>;
  summary: GetColumnData<typeof articles.summary>;
}

export function entityArticles(db: Db, scope: Scope, entityId: string, limit: number, offset: number) {
  return sqlRows<EntityArticleRow>(
    db,
    sql`SELECT ${a.id} AS url_id, ${a.url}, ${a.title}, ${a.domain}, ${a.datePublished} AS published_at, l.unified_score, l.embedding_similarity,
            l.source, ${a.summary}
     FROM (SELECT ${ae.urlId}, ${ae.unifiedScore}, ${ae.embeddingSimilarity}, ${ae.source} ${visibleLinks(scope, entityId)}
           ORDER BY ${ae.unifiedScore} DESC, ${ae.embeddingSimilarity} DESC, ${ae.urlId} LIMIT ${limit} OFFSET ${offset}) l
     JOIN ${articles} ${a} ON ${a.id} = l.url_id
     ORDER BY l.unified_score DESC, l.embedding_similarity DESC, l.url_id`,
  );
}
