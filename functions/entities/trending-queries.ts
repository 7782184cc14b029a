// Trending read path, one statement: sums of the entity_days / entity_hours roll-ups (kept at ingest)
// over the window, then the top article of each of the few ranked entities from the trending tops.
import { type GetColumnData, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { inPlan } from '../../shared/db/article-filters';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import { articleEntities, articles, entities, marketDays, urlProfiles } from '../../shared/db/schema/content';
import { entityDays, entityDayTops, entityHours, entityHourTops } from '../../shared/db/schema/entities';
import { DAY_MS as DAY } from '../../shared/time/windows';

export interface TrendingRequest {
  country: string;
  /** Profile language, or null for every language (the '*' rows). */
  language: string | null;
  /** Hour-aligned, half-open. */
  from: Date;
  to: Date;
  entityType: string | null;
  limit: number;
}

export interface TrendingRow {
  id: GetColumnData<typeof entities.id>;
  name: GetColumnData<typeof entities.name>;
  kg_id: GetColumnData<typeof entities.kgId>;
  kg_name: GetColumnData<typeof entities.kgName>;
  entity_types: GetColumnData<typeof entities.entityTypes>;
  mentions: number;
  articles: number;
  /** The top article (null only if the roll-ups disagreed, see routes/list-trending-entities.ts). */
  top_url_id: GetColumnData<typeof articles.id> | null;
  top_title: GetColumnData<typeof articles.title> | null;
  top_domain: GetColumnData<typeof articles.domain> | null;
}

/**
 * The window as whole UTC days (entity_days) plus the hours before and after them (entity_hours).
 * Without a whole day inside, the days range is empty and all hours fall in the second hour range.
 */
export function splitWindow(from: Date, to: Date) {
  const f = from.getTime();
  const t = to.getTime();
  let dayFrom = Math.ceil(f / DAY) * DAY;
  let dayTo = Math.floor(t / DAY) * DAY;
  if (dayFrom >= dayTo) dayFrom = dayTo = f;
  const iso = (ms: number) => new Date(ms).toISOString();
  return { before: [iso(f), iso(dayFrom)], days: [iso(dayFrom).slice(0, 10), iso(dayTo).slice(0, 10)], after: [iso(dayTo), iso(t)] };
}

/** A range's counts table (entity_days / entity_hours) and its tops table (entity_day_tops / entity_hour_tops). */
type Counts = typeof entityDays | typeof entityHours;
type Tops = typeof entityDayTops | typeof entityHourTops;

interface Range {
  counts: Counts;
  tops: Tops;
  from: string;
  to: string;
}

const DAYS = { counts: entityDays, tops: entityDayTops };
const HOURS = { counts: entityHours, tops: entityHourTops };

/** The window's non-empty ranges: empty ones would only add planning and index probes. */
function windowRanges(r: TrendingRequest): Range[] {
  const w = splitWindow(r.from, r.to);
  const ranges: Range[] = [
    { ...HOURS, from: w.before[0], to: w.before[1] },
    { ...DAYS, from: w.days[0], to: w.days[1] },
    { ...HOURS, from: w.after[0], to: w.after[1] },
  ];
  return ranges.filter((x) => x.from < x.to);
}

// The request's country and language (null: the '*' rows), and the range's bounds on the table's bucket
// (its day, or its hour).
const inRange = (r: TrendingRequest, x: Range, t: Counts | Tops) => {
  const [bucket, cast] = 'day' in t ? [t.day, sql.raw('date')] : [t.hour, sql.raw('timestamptz')];
  return sql`${t.country} = ${r.country} AND ${t.language} = coalesce(${r.language}::text, '*') AND ${bucket} >= ${x.from}::${cast} AND ${bucket} < ${x.to}::${cast}`;
};

// Each ranked entity's best occurrence per bucket of the window (entity_day_tops for whole days,
// entity_hour_tops for the edge hours, both kept at ingest): an index-only range read per table and
// entity, and the best of those few rows is the best mention of the window (ties as in the tables:
// unified_score, embedding_similarity descending, then url_id).
const topOf = (r: TrendingRequest, entity: SQL, ranges: Range[]) =>
  sql`${sql.join(
    ranges.map(
      (x) =>
        sql`SELECT ${x.tops.urlId}, ${x.tops.unifiedScore}, ${x.tops.embeddingSimilarity} FROM ${x.tops} WHERE ${x.tops.entityId} = ${entity} AND ${inRange(r, x, x.tops)}`,
    ),
    sql` UNION ALL `,
  )} ORDER BY unified_score DESC, embedding_similarity DESC, url_id LIMIT 1`;

/** The ranked entities `e` and their top articles `a`; the in-plan ranking's profiles `u`, `q` and mentions `ae`. */
const e = alias(entities, 'e');
const a = alias(articles, 'a');
const u = alias(urlProfiles, 'u');
const q = alias(urlProfiles, 'q');
const ae = alias(articleEntities, 'ae');

/** The entities of the requested type (all when none is asked). */
const ofType = (r: TrendingRequest, entityId: SQL) =>
  sql`${r.entityType}::text IS NULL OR ${entityId} IN (SELECT ${entities.id} FROM ${entities} WHERE ${r.entityType}::text = ANY(${entities.entityTypes}))`;

/** The page of ranked entities `t` with their names, and the columns of the answer. */
const page = (r: TrendingRequest) =>
  sql`t AS (SELECT * FROM s ORDER BY mentions DESC, articles DESC FETCH FIRST ${r.limit} ROWS WITH TIES),
     p AS (SELECT ${e.id}, ${e.name}, ${e.normalizedName}, ${e.kgId}, ${e.kgName}, ${e.entityTypes}, t.mentions, t.articles
       FROM t JOIN ${entities} ${e} ON ${e.id} = t.entity_id
       ORDER BY t.mentions DESC, t.articles DESC, ${e.normalizedName} LIMIT ${r.limit})
     SELECT p.id, p.name, p.kg_id, p.kg_name, p.entity_types, p.mentions, p.articles, ${a.id} AS top_url_id, ${a.title} AS top_title, ${a.domain} AS top_domain`;

/**
 * One statement: the window's counts summed per entity from the covering keys of entity_days /
 * entity_hours (index-only range reads), the page and its ties on the counts (only those need names,
 * which break the ties), then the top article of each of the page's entities.
 */
export function rankTrending(db: Db, r: TrendingRequest) {
  const ranges = windowRanges(r);
  const counts = ranges.map(
    (x) => sql`SELECT ${x.counts.entityId}, ${x.counts.mentions}, ${x.counts.articles} FROM ${x.counts} WHERE ${inRange(r, x, x.counts)}`,
  );
  return sqlRows<TrendingRow>(
    db,
    sql`WITH u AS (${sql.join(counts, sql` UNION ALL `)}),
     s AS (SELECT entity_id, sum(mentions)::int AS mentions, sum(articles)::int AS articles FROM u
       WHERE ${ofType(r, sql`entity_id`)}
       GROUP BY entity_id),
     ${page(r)}
     FROM p LEFT JOIN LATERAL (${topOf(r, sql`p.id`, ranges)}) x ON true LEFT JOIN ${articles} ${a} ON ${a.id} = x.url_id
     ORDER BY p.mentions DESC, p.articles DESC, p.normalized_name`,
  );
}

/**
 * The same ranking for a category-limited plan (docs/ENTITIES.md "Category-limited plans"): only mentions on articles of its
 * categories count, and `top_article` is one of them. The roll-ups keep no category, so this reads the
 * region's profiles first seen in the window (the same definitions as entity_hours: a mention per
 * profile; with `lang` every mention is an article, else an article counts at its first profile in the
 * region), for the smaller plans that choose categories.
 */
export function rankTrendingInPlan(db: Db, r: TrendingRequest, planCategories: string[]) {
  const from = r.from.toISOString();
  const to = r.to.toISOString();
  return sqlRows<TrendingRow>(
    db,
    sql`WITH w AS (SELECT DISTINCT ${u.urlId} FROM ${urlProfiles} ${u}
       WHERE ${u.country} = ${r.country} AND ${u.firstSeen} >= ${from}::timestamptz AND ${u.firstSeen} < ${to}::timestamptz AND ${inPlan(planCategories, u.urlId)}),
     f AS (SELECT ${q.urlId}, ${q.language}, ${q.firstSeen},
         row_number() OVER (PARTITION BY ${q.urlId} ORDER BY ${q.firstSeen}, ${q.language}) = 1 AS first_in_region
       FROM ${urlProfiles} ${q} JOIN w USING (url_id) WHERE ${q.country} = ${r.country}),
     m AS (SELECT url_id, first_in_region FROM f
       WHERE first_seen >= ${from}::timestamptz AND first_seen < ${to}::timestamptz AND (${r.language}::text IS NULL OR language = ${r.language})),
     l AS (SELECT ${ae.entityId}, ${ae.urlId}, ${ae.unifiedScore}, ${ae.embeddingSimilarity}, m.first_in_region
       FROM m JOIN ${articleEntities} ${ae} ON ${ae.urlId} = m.url_id
       WHERE ${ofType(r, sql`${ae.entityId}`)}),
     s AS (SELECT entity_id, count(*)::int AS mentions,
         (CASE WHEN ${r.language}::text IS NULL THEN count(*) FILTER (WHERE first_in_region) ELSE count(*) END)::int AS articles
       FROM l GROUP BY entity_id),
     ${page(r)}
     FROM p LEFT JOIN LATERAL (SELECT url_id FROM l WHERE l.entity_id = p.id
       ORDER BY unified_score DESC, embedding_similarity DESC, url_id LIMIT 1) x ON true LEFT JOIN ${articles} ${a} ON ${a.id} = x.url_id
     ORDER BY p.mentions DESC, p.articles DESC, p.normalized_name`,
  );
}

/**
 * The rows the category-limited ranking starts from (docs/SECURITY.md "Cost-based queueing"): the
 * region's profiles first seen in the window, from market_days.new_urls (kept exact at ingest) over the
 * days the window touches, so the estimate reads no profile.
 */
export async function inPlanRowsEstimate(db: Db, r: TrendingRequest): Promise<number> {
  const [row] = await sqlRows<{ n: number }>(
    db,
    sql`SELECT coalesce(sum(${marketDays.newUrls}), 0)::float8 AS n FROM ${marketDays}
     WHERE ${marketDays.country} = ${r.country} AND (${r.language}::text IS NULL OR ${marketDays.language} = ${r.language})
       AND ${marketDays.day} >= (${r.from.toISOString()}::timestamptz AT TIME ZONE 'UTC')::date AND ${marketDays.day} <= (${r.to.toISOString()}::timestamptz AT TIME ZONE 'UTC')::date`,
  );
  return Number(row?.n ?? 0);
}
