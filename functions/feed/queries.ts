// Feed reads. Every query takes the caller's scope (markets, plan categories), so a profile outside
// it can never be listed, counted or described. Each sort is carried by one index whose columns are
// the sort key plus the unique tie-breaker (url_id, country, language), so a page (first, offset or
// keyset) is one ordered index range and a keyset page costs the same at any depth (docs/DATA.md).
import type { Db } from '../../shared/db/client';
import { inPlanCategories, inPlanCategoriesPerRow } from '../../shared/db/plan-scope';
import { matchesEntityRefs } from '../../shared/db/entity-refs';
import { queryRows } from '../../shared/db/raw';
import { categoryMatchSql } from '../../shared/categories';
import { categoriesParam, EVERY_CATEGORY, marketsParam, type Scope } from '../../shared/scope';
import { bounds, selectItems, type ItemOptions, type ItemRow } from './items';
import type { SortKey } from './schemas';

export interface FeedFilter {
  /** The key's scope narrowed to the request's `country`: its markets and the plan's categories. */
  scope: Scope;
  /** Lower-case feed language; null = all. */
  language: string | null;
  categories: string[] | null;
  entities: string[] | null;
  matchAll: boolean;
  /** last_seen > seenAfter (date_from, or the plan's history start). */
  seenAfter: Date | null;
  /** first_seen < seenBefore (date_to). */
  seenBefore: Date | null;
  /** first_seen >= firstSeenFrom (/v2/live's since). */
  firstSeenFrom: Date | null;
}

/** The last row of a page: its sort value (as Postgres text) and tie-breakers. */
export type Keyset = [string, string, string, string];

export interface PageRequest {
  sort: SortKey;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
  after: Keyset | null;
  /** The feed version the iteration began at (cursor pages read the sort values as of it). */
  snapshot: number | null;
}

/**
 * The profile_windows column carrying each sort (one index each, on the sort value plus the
 * tie-breaker; the same in profile_windows_history for cursor pages).
 */
const INT8 = { type: 'int8', min: '-9223372036854775808', max: '9223372036854775807' };
const TSTZ = { type: 'timestamptz', min: '-infinity', max: 'infinity' };
const SORTS: Record<SortKey, { column: string; type: string; min: string; max: string }> = {
  derived: { column: 'derived', ...INT8 },
  impressions_1h: { column: 'imp_1h', ...INT8 },
  impressions_24h: { column: 'imp_24h', ...INT8 },
  impressions_7d: { column: 'imp_7d', ...INT8 },
  impressions_30d: { column: 'imp_30d', ...INT8 },
  first_seen: { column: 'first_seen', ...TSTZ },
  last_seen: { column: 'last_seen', ...TSTZ },
  avg_position: { column: 'avg_position', type: 'real', min: '-Infinity', max: 'Infinity' },
};

export const FILTER_PARAMS = (f: FeedFilter) => [
  marketsParam(f.scope),
  f.language,
  f.seenAfter?.toISOString() ?? null,
  f.seenBefore?.toISOString() ?? null,
  f.firstSeenFrom?.toISOString() ?? null,
  f.categories,
  f.entities,
  f.matchAll,
  categoriesParam(f.scope),
];

/**
 * Conditions over parameters $1-$9 (FILTER_PARAMS) for filter `f` (which says whether entities are
 * named, and the plan's categories) on the profile row `t`: url_profiles, or the row versions a page
 * reads (profile_windows or a history version), which carry the profile's key and time columns, so a
 * page walks one sort index with no join (a join on the three key columns is estimated at a few rows,
 * and the planner then sorted every profile for a deep page). A page checks the plan per row it walks
 * (its cost follows the page, not the table); a count, which reads every match, may hash the plan's articles.
 */
export const WHERE_ON = (
  t: string,
  f: FeedFilter,
  walk = true,
) => `($1::text[] IS NULL OR ${t}.country = ANY($1::text[])) AND ($2::text IS NULL OR ${t}.language = $2::text)
  AND ($3::timestamptz IS NULL OR ${t}.last_seen > $3::timestamptz) AND ($4::timestamptz IS NULL OR ${t}.first_seen < $4::timestamptz)
  AND ($5::timestamptz IS NULL OR ${t}.first_seen >= $5::timestamptz)
  AND ($6::text[] IS NULL OR (
        SELECT count(DISTINCT c.path) FROM unnest($6::text[]) AS c(path)
        JOIN article_categories ac ON ac.url_id = ${t}.url_id AND ${categoryMatchSql('ac.name', 'c.path')}
      ) >= CASE WHEN $8::bool THEN cardinality($6::text[]) ELSE 1 END)
  AND ${matchesEntityRefs('$7', '$8', `${t}.url_id`, f.entities)}
  AND ${walk ? inPlanCategoriesPerRow('$9', `${t}.url_id`) : inPlanCategories('$9', `${t}.url_id`)}`;
const WHERE = (f: FeedFilter) => WHERE_ON('p', f, false);

/**
 * The profiles of the markets (and language) last seen at or before $3: the complement of a history
 * floor. market_days.new_urls counts each profile once, on its first_seen day (kept exact at ingest),
 * so its sum is the number of profiles per market without reading them.
 */
const COUNT_BY_COMPLEMENT = `SELECT (
  (SELECT coalesce(sum(d.new_urls), 0) FROM market_days d WHERE ($1::text[] IS NULL OR d.country = ANY($1::text[])) AND ($2::text IS NULL OR d.language = $2::text))
  - (SELECT count(*) FROM url_profiles p WHERE ($1::text[] IS NULL OR p.country = ANY($1::text[])) AND ($2::text IS NULL OR p.language = $2::text)
       AND p.last_seen <= $3::timestamptz))::int AS n`;

/**
 * The same for a category-limited plan ($4, its top levels): article_reach counts the articles per
 * (markets reached, top categories), kept exact at ingest, and an article has one profile per market
 * it reached, so the plan's profiles in the markets are a sum over its rows of articles x markets in
 * scope. The few profiles below the floor are checked one by one.
 */
const COUNT_IN_PLAN_BY_COMPLEMENT = `SELECT (
  (SELECT coalesce(sum(r.articles * (SELECT count(*) FROM unnest(r.markets) AS m
      WHERE ($1::text[] IS NULL OR split_part(m, ':', 1) = ANY($1::text[])) AND ($2::text IS NULL OR split_part(m, ':', 2) = $2::text))), 0)
   FROM article_reach r WHERE r.top_categories && $4::text[])
  - (SELECT count(*) FROM url_profiles p WHERE ($1::text[] IS NULL OR p.country = ANY($1::text[])) AND ($2::text IS NULL OR p.language = $2::text)
       AND p.last_seen <= $3::timestamptz AND ${inPlanCategories('$4', 'p.url_id')}))::int AS n`;

/**
 * How many profiles match. `olderFloor`: the last_seen floor lies far back (a plan's history, not a
 * period), so most profiles are above it; with no other filter the count is then the market's profile
 * count minus the few below the floor, instead of a pass over every profile.
 */
export async function countProfiles(db: Db, f: FeedFilter, olderFloor = false): Promise<number> {
  const marketsOnly = !f.categories && !f.entities && !f.seenBefore && !f.firstSeenFrom && f.seenAfter;
  const floor = [marketsParam(f.scope), f.language, f.seenAfter?.toISOString()];
  const [row] =
    olderFloor && marketsOnly
      ? f.scope.planCategories === EVERY_CATEGORY
        ? await queryRows<{ n: number }>(db, COUNT_BY_COMPLEMENT, floor)
        : await queryRows<{ n: number }>(db, COUNT_IN_PLAN_BY_COMPLEMENT, [...floor, categoriesParam(f.scope)])
      : await queryRows<{ n: number }>(db, `SELECT count(*)::int AS n FROM url_profiles p WHERE ${WHERE(f)}`, FILTER_PARAMS(f));
  return row.n;
}

export interface PageKey {
  url_id: string;
  country: string;
  language: string;
  sk: string;
}

export interface FeedRead {
  /** When the windows table ends (ms): the caller checks it against its own hour. */
  asOf: number;
  /** The feed version this read saw, which a first page pins in its cursor. */
  version: number;
  /** `limit + 1` keys in sort order, so the caller knows whether more follow. */
  keys: PageKey[];
  /** The items of the first `limit` keys, in order. */
  items: ItemRow[];
}

/**
 * One page in one statement (so one snapshot): its keys in sort order, the items they show, the hour
 * the windows table ends at and the feed version.
 *
 * First and offset pages read current values. A cursor page reads the values as of its snapshot S
 * (docs/DATA.md "Feed snapshots"): current rows unchanged since S, UNION ALL the history versions valid
 * at S, each part one range of its (sort, url_id, country, language) index after the keyset, merged
 * in order and cut at the limit. Profiles first written after S are in neither part. The history part
 * is bounded by the current part's last row (no history row beyond it can be in the page), so it
 * reads only the versions inside the page's own key range, never the rest of the table.
 */
export async function readPage(db: Db, f: FeedFilter, page: PageRequest, o: ItemOptions): Promise<FeedRead> {
  const s = SORTS[page.sort];
  const dir = page.order === 'asc' ? 'ASC' : 'DESC';
  const params: unknown[] = FILTER_PARAMS(f);
  const cols = (t: string) => [`${t}.${s.column}`, `${t}.url_id`, `${t}.country`, `${t}.language`];
  const order = (t: string) =>
    cols(t)
      .map((c) => `${c} ${dir}`)
      .join(', ');
  const select = (t: string) => `SELECT ${t}.${s.column} AS sk, ${t}.url_id, ${t}.country, ${t}.language`;
  let rows: string;
  if (page.after && page.snapshot !== null) {
    params.push(...page.after, page.snapshot, page.limit + 1);
    const asc = page.order === 'asc';
    const keyset = (t: string) => `(${cols(t).join(', ')}) ${asc ? '>' : '<'} ($10::${s.type}, $11::uuid, $12::text, $13::text)`;
    const byKey = (t: string) => `${t}.sk ${dir}, ${t}.url_id ${dir}, ${t}.country ${dir}, ${t}.language ${dir}`;
    // The current part's last row bounds the history part (the type's extreme when the current part
    // ends before the limit): an index range from the keyset to the bound, as cheap as the page.
    rows = `WITH cur AS MATERIALIZED (
         ${select('w')} FROM profile_windows w
         WHERE ${WHERE_ON('w', f)} AND ${keyset('w')} AND w.valid_from <= $14::int8 ORDER BY ${order('w')} LIMIT $15),
       bound AS (SELECT coalesce((SELECT c.sk FROM cur c ORDER BY ${byKey('c')} OFFSET $15 - 1 LIMIT 1), '${asc ? s.max : s.min}'::${s.type}) AS sk),
       hist AS (
         ${select('h')} FROM profile_windows_history h
         WHERE ${WHERE_ON('h', f)} AND ${keyset('h')} AND h.${s.column} ${asc ? '<=' : '>='} (SELECT sk FROM bound)
           AND h.valid_from <= $14::int8 AND h.valid_to > $14::int8 ORDER BY ${order('h')} LIMIT $15)
       SELECT u.* FROM (SELECT * FROM cur UNION ALL SELECT * FROM hist) u ORDER BY ${byKey('u')} LIMIT $15`;
  } else {
    params.push(page.limit + 1, page.offset);
    rows = `${select('w')} FROM profile_windows w WHERE ${WHERE_ON('w', f)} ORDER BY ${order('w')} LIMIT $10 OFFSET $11`;
  }
  const limit = `$${params.length + 1}`;
  params.push(page.limit);
  const n = params.length + 1;
  params.push(...bounds(o));
  // One row per shown item (its columns), each also carrying the page's state, version and keys; one
  // row of those alone when the page is empty.
  const result = await queryRows<ItemRow & { as_of: number; version: string; keys: PageKey[]; ord: number }>(
    db,
    `WITH page AS MATERIALIZED (
       SELECT r.*, row_number() OVER (ORDER BY r.sk ${dir}, r.url_id ${dir}, r.country ${dir}, r.language ${dir}) AS ord FROM (${rows}) r)
     SELECT h.*, i.* FROM (
       SELECT (SELECT extract(epoch FROM as_of)::float8 FROM feed_windows_state WHERE id = 1) AS as_of,
         (SELECT version FROM feed_versions WHERE id = 1)::text AS version,
         coalesce((SELECT json_agg(json_build_object('url_id', k.url_id::text, 'country', k.country, 'language', k.language, 'sk', k.sk::text) ORDER BY k.ord) FROM page k), '[]') AS keys) h
     LEFT JOIN LATERAL (
       ${selectItems(n)}, k.ord
       FROM (SELECT * FROM page ORDER BY ord LIMIT ${limit}) k
       JOIN url_profiles p ON (p.url_id, p.country, p.language) = (k.url_id, k.country, k.language)
       JOIN articles a ON a.id = k.url_id
       LEFT JOIN publishers pub ON pub.domain = a.domain) i ON true
     ORDER BY i.ord`,
    params,
  );
  const [{ as_of, version, keys }] = result;
  const items = result.filter((r) => r.url_id !== null).map(({ as_of: _, version: __, keys: ___, ord: ____, ...item }) => item as ItemRow);
  return { asOf: Number(as_of) * 1000, version: Number(version), keys, items };
}
