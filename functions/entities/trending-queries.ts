// Trending read path, one statement: sums of the entity_days / entity_hours roll-ups (kept at ingest)
// over the window, then the top article of each of the few ranked entities from the trending tops.
import type { Db } from '../../shared/db/client';
import { inPlanCategories } from '../../shared/db/plan-scope';
import { queryRows } from '../../shared/db/raw';
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
  id: string;
  name: string;
  kg_id: string | null;
  kg_name: string | null;
  entity_types: string[];
  mentions: number;
  articles: number;
  /** The top article (null only if the roll-ups disagreed, see routes/list-trending-entities.ts). */
  top_url_id: string | null;
  top_title: string | null;
  top_domain: string | null;
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

interface Range {
  /** The counts table; its tops table is entity_day_tops / entity_hour_tops. */
  grain: 'day' | 'hour';
  from: string;
  to: string;
}

/** The window's non-empty ranges: empty ones would only add planning and index probes. */
function windowRanges(r: TrendingRequest): Range[] {
  const w = splitWindow(r.from, r.to);
  const ranges: Range[] = [
    { grain: 'hour', from: w.before[0], to: w.before[1] },
    { grain: 'day', from: w.days[0], to: w.days[1] },
    { grain: 'hour', from: w.after[0], to: w.after[1] },
  ];
  return ranges.filter((x) => x.from < x.to);
}

// $1 country, $2 language (null: the '*' rows), $3 entity type, $4 limit; then each range's bounds.
const IN_RANGE = (x: Range, i: number) => {
  const cast = x.grain === 'day' ? 'date' : 'timestamptz';
  return `country = $1 AND language = coalesce($2::text, '*') AND ${x.grain} >= $${5 + 2 * i}::${cast} AND ${x.grain} < $${6 + 2 * i}::${cast}`;
};

// Each ranked entity's best occurrence per bucket of the window (entity_day_tops for whole days,
// entity_hour_tops for the edge hours, both kept at ingest): an index-only range read per table and
// entity, and the best of those few rows is the best mention of the window (ties as in the tables:
// unified_score, embedding_similarity descending, then url_id).
const TOP_OF = (entity: string, ranges: Range[]) =>
  `${ranges
    .map(
      (x, i) =>
        `SELECT url_id, unified_score, embedding_similarity FROM entity_${x.grain}_tops WHERE entity_id = ${entity} AND ${IN_RANGE(x, i)}`,
    )
    .join(' UNION ALL ')} ORDER BY unified_score DESC, embedding_similarity DESC, url_id LIMIT 1`;

/**
 * One statement: the window's counts summed per entity from the covering keys of entity_days /
 * entity_hours (index-only range reads), the page and its ties on the counts (only those need names,
 * which break the ties), then the top article of each of the page's entities.
 */
export function rankTrending(db: Db, r: TrendingRequest) {
  const ranges = windowRanges(r);
  const counts = ranges.map((x, i) => `SELECT entity_id, mentions, articles FROM entity_${x.grain}s WHERE ${IN_RANGE(x, i)}`);
  return queryRows<TrendingRow>(
    db,
    `WITH u AS (${counts.join(' UNION ALL ')}),
     s AS (SELECT entity_id, sum(mentions)::int AS mentions, sum(articles)::int AS articles FROM u
       WHERE $3::text IS NULL OR entity_id IN (SELECT id FROM entities WHERE $3::text = ANY(entity_types))
       GROUP BY entity_id),
     t AS (SELECT * FROM s ORDER BY mentions DESC, articles DESC FETCH FIRST $4 ROWS WITH TIES),
     p AS (SELECT e.id, e.name, e.normalized_name, e.kg_id, e.kg_name, e.entity_types, t.mentions, t.articles
       FROM t JOIN entities e ON e.id = t.entity_id
       ORDER BY t.mentions DESC, t.articles DESC, e.normalized_name LIMIT $4)
     SELECT p.id, p.name, p.kg_id, p.kg_name, p.entity_types, p.mentions, p.articles, a.id AS top_url_id, a.title AS top_title, a.domain AS top_domain
     FROM p LEFT JOIN LATERAL (${TOP_OF('p.id', ranges)}) x ON true LEFT JOIN articles a ON a.id = x.url_id
     ORDER BY p.mentions DESC, p.articles DESC, p.normalized_name`,
    [r.country, r.language, r.entityType, r.limit, ...ranges.flatMap((x) => [x.from, x.to])],
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
  return queryRows<TrendingRow>(
    db,
    `WITH w AS (SELECT DISTINCT u.url_id FROM url_profiles u
       WHERE u.country = $1 AND u.first_seen >= $5::timestamptz AND u.first_seen < $6::timestamptz AND ${inPlanCategories('$7', 'u.url_id')}),
     f AS (SELECT q.url_id, q.language, q.first_seen,
         row_number() OVER (PARTITION BY q.url_id ORDER BY q.first_seen, q.language) = 1 AS first_in_region
       FROM url_profiles q JOIN w USING (url_id) WHERE q.country = $1),
     m AS (SELECT url_id, first_in_region FROM f
       WHERE first_seen >= $5::timestamptz AND first_seen < $6::timestamptz AND ($2::text IS NULL OR language = $2)),
     l AS (SELECT ae.entity_id, ae.url_id, ae.unified_score, ae.embedding_similarity, m.first_in_region
       FROM m JOIN article_entities ae ON ae.url_id = m.url_id
       WHERE $3::text IS NULL OR ae.entity_id IN (SELECT id FROM entities WHERE $3::text = ANY(entity_types))),
     s AS (SELECT entity_id, count(*)::int AS mentions,
         (CASE WHEN $2::text IS NULL THEN count(*) FILTER (WHERE first_in_region) ELSE count(*) END)::int AS articles
       FROM l GROUP BY entity_id),
     t AS (SELECT * FROM s ORDER BY mentions DESC, articles DESC FETCH FIRST $4 ROWS WITH TIES),
     p AS (SELECT e.id, e.name, e.normalized_name, e.kg_id, e.kg_name, e.entity_types, t.mentions, t.articles
       FROM t JOIN entities e ON e.id = t.entity_id
       ORDER BY t.mentions DESC, t.articles DESC, e.normalized_name LIMIT $4)
     SELECT p.id, p.name, p.kg_id, p.kg_name, p.entity_types, p.mentions, p.articles, a.id AS top_url_id, a.title AS top_title, a.domain AS top_domain
     FROM p LEFT JOIN LATERAL (SELECT url_id FROM l WHERE l.entity_id = p.id
       ORDER BY unified_score DESC, embedding_similarity DESC, url_id LIMIT 1) x ON true LEFT JOIN articles a ON a.id = x.url_id
     ORDER BY p.mentions DESC, p.articles DESC, p.normalized_name`,
    [r.country, r.language, r.entityType, r.limit, r.from.toISOString(), r.to.toISOString(), planCategories],
  );
}

/**
 * The rows the category-limited ranking starts from (docs/SECURITY.md "Cost-based queueing"): the
 * region's profiles first seen in the window, from market_days.new_urls (kept exact at ingest) over the
 * days the window touches, so the estimate reads no profile.
 */
export async function inPlanRowsEstimate(db: Db, r: TrendingRequest): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    `SELECT coalesce(sum(new_urls), 0)::float8 AS n FROM market_days
     WHERE country = $1 AND ($2::text IS NULL OR language = $2) AND day >= ($3::timestamptz AT TIME ZONE 'UTC')::date AND day <= ($4::timestamptz AT TIME ZONE 'UTC')::date`,
    [r.country, r.language, r.from.toISOString(), r.to.toISOString()],
  );
  return Number(row?.n ?? 0);
}
