// Trending read path, one statement: sums of the entity_days / entity_hours roll-ups (kept at ingest)
// over the window, then the top article of each of the few ranked entities from the trending tops.
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';

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
  /** The top article (null only if the roll-ups disagreed, see trending.ts). */
  top_url_id: string | null;
  top_title: string | null;
  top_domain: string | null;
}

const DAY = 86_400_000;

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

// Each ranked entity's best occurrence per bucket of the window (entity_day_tops for whole days,
// entity_hour_tops for the edge hours, both kept at ingest): an index-only range read per table and
// entity, and the best of those few rows is the best mention of the window (ties as in the tables:
// unified_score, embedding_similarity descending, then url_id).
const TOP_OF = (entity: string) => `
    SELECT url_id, unified_score, embedding_similarity FROM entity_day_tops
    WHERE entity_id = ${entity} AND country = $1 AND language = coalesce($2::text, '*') AND day >= $3::date AND day < $4::date
    UNION ALL
    SELECT url_id, unified_score, embedding_similarity FROM entity_hour_tops
    WHERE entity_id = ${entity} AND country = $1 AND language = coalesce($2::text, '*') AND hour >= $5 AND hour < $6
    UNION ALL
    SELECT url_id, unified_score, embedding_similarity FROM entity_hour_tops
    WHERE entity_id = ${entity} AND country = $1 AND language = coalesce($2::text, '*') AND hour >= $7 AND hour < $8
    ORDER BY unified_score DESC, embedding_similarity DESC, url_id LIMIT 1`;

/**
 * One statement: the window's counts summed per entity from the covering keys of entity_days /
 * entity_hours (index-only range reads), the page and its ties on the counts (only those need names,
 * which break the ties), then the top article of each of the page's entities.
 */
export function rankTrending(db: Db, r: TrendingRequest) {
  const w = splitWindow(r.from, r.to);
  return queryRows<TrendingRow>(
    db,
    `WITH u AS (
       SELECT entity_id, mentions, articles FROM entity_days
       WHERE country = $1 AND language = coalesce($2::text, '*') AND day >= $3::date AND day < $4::date
       UNION ALL
       SELECT entity_id, mentions, articles FROM entity_hours
       WHERE country = $1 AND language = coalesce($2::text, '*') AND hour >= $5 AND hour < $6
       UNION ALL
       SELECT entity_id, mentions, articles FROM entity_hours
       WHERE country = $1 AND language = coalesce($2::text, '*') AND hour >= $7 AND hour < $8),
     s AS (SELECT entity_id, sum(mentions)::int AS mentions, sum(articles)::int AS articles FROM u
       WHERE $9::text IS NULL OR entity_id IN (SELECT id FROM entities WHERE $9::text = ANY(entity_types))
       GROUP BY entity_id),
     t AS (SELECT * FROM s ORDER BY mentions DESC, articles DESC FETCH FIRST $10 ROWS WITH TIES),
     p AS (SELECT e.id, e.name, e.normalized_name, e.kg_id, e.kg_name, e.entity_types, t.mentions, t.articles
       FROM t JOIN entities e ON e.id = t.entity_id
       ORDER BY t.mentions DESC, t.articles DESC, e.normalized_name LIMIT $10)
     SELECT p.id, p.name, p.kg_id, p.kg_name, p.entity_types, p.mentions, p.articles, a.id AS top_url_id, a.title AS top_title, a.domain AS top_domain
     FROM p LEFT JOIN LATERAL (${TOP_OF('p.id')}) x ON true LEFT JOIN articles a ON a.id = x.url_id
     ORDER BY p.mentions DESC, p.articles DESC, p.normalized_name`,
    [r.country, r.language, ...w.days, ...w.before, ...w.after, r.entityType, r.limit],
  );
}
