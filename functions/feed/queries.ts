// Feed reads. Every query takes the caller's scope (markets, plan categories), so a profile outside
// it can never be listed, counted or described. Each sort is carried by one index whose columns are
// the sort key plus the unique tie-breaker (url_id, country, language), so a page (first, offset or
// keyset) is one ordered index range and a keyset page costs the same at any depth (docs/DATA.md).
import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { carriesEntities, categoryMatch, inPlan } from '../../shared/db/article-filters';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import { articleCategories, articleReach, marketDays, urlProfiles } from '../../shared/db/schema/content';
import { feedVersions, feedWindowsState, profileWindows, profileWindowsHistory } from '../../shared/db/schema/feed';
import { categoriesParam, EVERY_CATEGORY, marketsParam, type Scope } from '../../shared/scope/scope';
import { ITEM_JOINS, type ItemOptions, type ItemRow, selectItems } from './items';
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
type SortColumn = 'derived' | 'imp1h' | 'imp24h' | 'imp7d' | 'imp30d' | 'firstSeen' | 'lastSeen' | 'avgPosition';
const INT8 = { type: 'int8', min: '-9223372036854775808', max: '9223372036854775807' };
const TSTZ = { type: 'timestamptz', min: '-infinity', max: 'infinity' };
const SORTS: Record<SortKey, { column: SortColumn; type: string; min: string; max: string }> = {
  derived: { column: 'derived', ...INT8 },
  impressions_1h: { column: 'imp1h', ...INT8 },
  impressions_24h: { column: 'imp24h', ...INT8 },
  impressions_7d: { column: 'imp7d', ...INT8 },
  impressions_30d: { column: 'imp30d', ...INT8 },
  first_seen: { column: 'firstSeen', ...TSTZ },
  last_seen: { column: 'lastSeen', ...TSTZ },
  avg_position: { column: 'avgPosition', type: 'real', min: '-Infinity', max: 'Infinity' },
};

/** The key and time columns a filtered row carries: url_profiles, profile_windows and its history versions. */
export type ProfileColumns = Record<'urlId' | 'country' | 'language' | 'firstSeen' | 'lastSeen', SQLWrapper>;

/** The profiles a statement reads, by role: `p` counted, `w` paged (current values), `h` paged (history versions). */
const p = alias(urlProfiles, 'p');
const w = alias(profileWindows, 'w');
const h = alias(profileWindowsHistory, 'h');

/**
 * Filter `f` on the profile row `t`: url_profiles, or the row versions a page reads (profile_windows
 * or a history version), which carry the profile's key and time columns, so a page walks one sort
 * index with no join (a join on the three key columns is estimated at a few rows, and the planner then
 * sorted every profile for a deep page). A page checks the plan per row it walks (its cost follows the
 * page, not the table); a count, which reads every match, may hash the plan's articles.
 */
export function whereOn(t: ProfileColumns, f: FeedFilter, walk = true): SQL {
  const markets = sql.param(marketsParam(f.scope));
  const seenAfter = f.seenAfter?.toISOString() ?? null;
  const seenBefore = f.seenBefore?.toISOString() ?? null;
  const firstSeenFrom = f.firstSeenFrom?.toISOString() ?? null;
  const categories = sql.param(f.categories);
  return sql`(${markets}::text[] IS NULL OR ${t.country} = ANY(${markets}::text[])) AND (${f.language}::text IS NULL OR ${t.language} = ${f.language}::text)
  AND (${seenAfter}::timestamptz IS NULL OR ${t.lastSeen} > ${seenAfter}::timestamptz)
  AND (${seenBefore}::timestamptz IS NULL OR ${t.firstSeen} < ${seenBefore}::timestamptz)
  AND (${firstSeenFrom}::timestamptz IS NULL OR ${t.firstSeen} >= ${firstSeenFrom}::timestamptz)
  AND (${categories}::text[] IS NULL OR (
        SELECT count(DISTINCT c.path) FROM unnest(${categories}::text[]) AS c(path)
        JOIN ${articleCategories} ON ${articleCategories.urlId} = ${t.urlId} AND ${categoryMatch(articleCategories.name, sql`c.path`)}
      ) >= CASE WHEN ${f.matchAll}::bool THEN cardinality(${categories}::text[]) ELSE 1 END)
  AND ${carriesEntities(f.entities, f.matchAll, t.urlId)}
  AND ${inPlan(categoriesParam(f.scope), t.urlId, walk)}`;
}

/** Profile `p` in the filter's markets and language, last seen at or before the floor. */
const belowFloor = (f: FeedFilter, markets: SQLWrapper) => sql`(${markets}::text[] IS NULL OR ${p.country} = ANY(${markets}::text[]))
       AND (${f.language}::text IS NULL OR ${p.language} = ${f.language}::text) AND ${p.lastSeen} <= ${f.seenAfter?.toISOString() ?? null}::timestamptz`;

/**
 * The profiles of the markets (and language) last seen at or before the floor: the complement of a history
 * floor. market_days.new_urls counts each profile once, on its first_seen day (kept exact at ingest),
 * so its sum is the number of profiles per market without reading them.
 */
function countByComplement(f: FeedFilter): SQL {
  const markets = sql.param(marketsParam(f.scope));
  return sql`SELECT (
  (SELECT coalesce(sum(${marketDays.newUrls}), 0) FROM ${marketDays}
   WHERE (${markets}::text[] IS NULL OR ${marketDays.country} = ANY(${markets}::text[])) AND (${f.language}::text IS NULL OR ${marketDays.language} = ${f.language}::text))
  - (SELECT count(*) FROM ${urlProfiles} ${p} WHERE ${belowFloor(f, markets)}))::int AS n`;
}

/**
 * The same for a category-limited plan (its top levels): article_reach counts the articles per
 * (markets reached, top categories), kept exact at ingest, and an article has one profile per market
 * it reached, so the plan's profiles in the markets are a sum over its rows of articles x markets in
 * scope. The few profiles below the floor are checked one by one.
 */
function countInPlanByComplement(f: FeedFilter): SQL {
  const markets = sql.param(marketsParam(f.scope));
  const tops = categoriesParam(f.scope);
  return sql`SELECT (
  (SELECT coalesce(sum(${articleReach.articles} * (SELECT count(*) FROM unnest(${articleReach.markets}) AS m
      WHERE (${markets}::text[] IS NULL OR split_part(m, ':', 1) = ANY(${markets}::text[])) AND (${f.language}::text IS NULL OR split_part(m, ':', 2) = ${f.language}::text))), 0)
   FROM ${articleReach} WHERE ${articleReach.topCategories} && ${sql.param(tops)}::text[])
  - (SELECT count(*) FROM ${urlProfiles} ${p} WHERE ${belowFloor(f, markets)} AND ${inPlan(tops, p.urlId)}))::int AS n`;
}

/**
 * How many profiles match. `olderFloor`: the last_seen floor lies far back (a plan's history, not a
 * period), so most profiles are above it; with no other filter the count is then the market's profile
 * count minus the few below the floor, instead of a pass over every profile.
 */
export async function countProfiles(db: Db, f: FeedFilter, olderFloor = false): Promise<number> {
  const marketsOnly = !f.categories && !f.entities && !f.seenBefore && !f.firstSeenFrom && f.seenAfter;
  const query =
    olderFloor && marketsOnly
      ? f.scope.planCategories === EVERY_CATEGORY
        ? countByComplement(f)
        : countInPlanByComplement(f)
      : sql`SELECT count(*)::int AS n FROM ${urlProfiles} ${p} WHERE ${whereOn(p, f, false)}`;
  const [row] = await sqlRows<{ n: number }>(db, query);
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
  const dir = sql.raw(page.order === 'asc' ? 'ASC' : 'DESC');
  const cols = (t: typeof w | typeof h) => [t[s.column], t.urlId, t.country, t.language];
  const order = (t: typeof w | typeof h) =>
    sql.join(
      cols(t).map((c) => sql`${c} ${dir}`),
      sql`, `,
    );
  const select = (t: typeof w | typeof h) => sql`SELECT ${t[s.column]} AS sk, ${t.urlId}, ${t.country}, ${t.language}`;
  let rows: SQL;
  if (page.after && page.snapshot !== null) {
    const asc = page.order === 'asc';
    const [sk, urlId, country, language] = page.after;
    const type = sql.raw(s.type);
    const keyset = (t: typeof w | typeof h) =>
      sql`(${sql.join(cols(t), sql`, `)}) ${sql.raw(asc ? '>' : '<')} (${sk}::${type}, ${urlId}::uuid, ${country}::text, ${language}::text)`;
    const d = asc ? 'ASC' : 'DESC';
    const byKey = (t: string) => sql.raw(`${t}.sk ${d}, ${t}.url_id ${d}, ${t}.country ${d}, ${t}.language ${d}`);
    const limit = page.limit + 1;
    // The current part's last row bounds the history part (the type's extreme when the current part
    // ends before the limit): an index range from the keyset to the bound, as cheap as the page.
    rows = sql`WITH cur AS MATERIALIZED (
         ${select(w)} FROM ${profileWindows} ${w}
         WHERE ${whereOn(w, f)} AND ${keyset(w)} AND ${w.validFrom} <= ${page.snapshot}::int8 ORDER BY ${order(w)} LIMIT ${limit}),
       bound AS (SELECT coalesce((SELECT c.sk FROM cur c ORDER BY ${byKey('c')} OFFSET ${limit}::int8 - 1 LIMIT 1), ${sql.raw(`'${asc ? s.max : s.min}'`)}::${type}) AS sk),
       hist AS (
         ${select(h)} FROM ${profileWindowsHistory} ${h}
         WHERE ${whereOn(h, f)} AND ${keyset(h)} AND ${h[s.column]} ${sql.raw(asc ? '<=' : '>=')} (SELECT sk FROM bound)
           AND ${h.validFrom} <= ${page.snapshot}::int8 AND ${h.validTo} > ${page.snapshot}::int8 ORDER BY ${order(h)} LIMIT ${limit})
       SELECT u.* FROM (SELECT * FROM cur UNION ALL SELECT * FROM hist) u ORDER BY ${byKey('u')} LIMIT ${limit}`;
  } else {
    rows = sql`${select(w)} FROM ${profileWindows} ${w} WHERE ${whereOn(w, f)} ORDER BY ${order(w)} LIMIT ${page.limit + 1} OFFSET ${page.offset}`;
  }
  // One row per shown item (its columns), each also carrying the page's state, version and keys; one
  // row of those alone when the page is empty.
  const result = await sqlRows<ItemRow & { as_of: number; version: string; keys: PageKey[]; ord: number }>(
    db,
    sql`WITH page AS MATERIALIZED (
       SELECT r.*, row_number() OVER (ORDER BY r.sk ${dir}, r.url_id ${dir}, r.country ${dir}, r.language ${dir}) AS ord FROM (${rows}) r)
     SELECT h.*, i.* FROM (
       SELECT (SELECT extract(epoch FROM ${feedWindowsState.asOf})::float8 FROM ${feedWindowsState} WHERE ${feedWindowsState.id} = 1) AS as_of,
         (SELECT ${feedVersions.version} FROM ${feedVersions} WHERE ${feedVersions.id} = 1)::text AS version,
         coalesce((SELECT json_agg(json_build_object('url_id', k.url_id::text, 'country', k.country, 'language', k.language, 'sk', k.sk::text) ORDER BY k.ord) FROM page k), '[]') AS keys) h
     LEFT JOIN LATERAL (
       ${selectItems(o)}, k.ord
       FROM (SELECT * FROM page ORDER BY ord LIMIT ${page.limit}) k
       ${ITEM_JOINS}) i ON true
     ORDER BY i.ord`,
  );
  const [{ as_of, version, keys }] = result;
  const items = result.filter((r) => r.url_id !== null).map(({ as_of: _, version: __, keys: ___, ord: ____, ...item }) => item as ItemRow);
  return { asOf: Number(as_of) * 1000, version: Number(version), keys, items };
}
