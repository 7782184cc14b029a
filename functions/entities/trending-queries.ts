// Trending read path: sums of the entity_days / entity_hours roll-ups (kept at ingest) over the window,
// then the top article of each of the few ranked entities.
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
     s AS MATERIALIZED (SELECT entity_id, sum(mentions)::int AS mentions, sum(articles)::int AS articles FROM u GROUP BY entity_id),
     f AS MATERIALIZED (
       SELECT * FROM s WHERE $9::text IS NULL OR entity_id IN (SELECT id FROM entities WHERE $9::text = ANY(entity_types))),
     -- The limit-th count: only entities at or above it (the page and its ties) need their names.
     b AS (SELECT mentions, articles FROM f ORDER BY mentions DESC, articles DESC OFFSET $10 - 1 LIMIT 1)
     SELECT e.id, e.name, e.kg_id, e.kg_name, e.entity_types, f.mentions, f.articles
     FROM f JOIN entities e ON e.id = f.entity_id
     WHERE NOT EXISTS (SELECT 1 FROM b) OR (f.mentions, f.articles) >= (SELECT b.mentions, b.articles FROM b)
     ORDER BY f.mentions DESC, f.articles DESC, e.normalized_name
     LIMIT $10`,
    [r.country, r.language, ...w.days, ...w.before, ...w.after, r.entityType, r.limit],
  );
}

export interface TopArticleRow {
  entity_id: string;
  url_id: string;
  title: string;
  domain: string;
}

// Each ranked entity's best occurrence per bucket of the window (entity_day_tops for whole days,
// entity_hour_tops for the edge hours, both kept at ingest): one index-only range read per table and
// entity, and the best of those few rows is the best mention of the window (ties as in the tables:
// unified_score, embedding_similarity descending, then url_id).
const TOPS = `
  SELECT t.entity_id, x.url_id FROM unnest($1::uuid[]) AS t(entity_id)
  CROSS JOIN LATERAL (
    SELECT url_id, unified_score, embedding_similarity FROM entity_day_tops
    WHERE entity_id = t.entity_id AND country = $2 AND language = coalesce($3::text, '*') AND day >= $4::date AND day < $5::date
    UNION ALL
    SELECT url_id, unified_score, embedding_similarity FROM entity_hour_tops
    WHERE entity_id = t.entity_id AND country = $2 AND language = coalesce($3::text, '*') AND hour >= $6 AND hour < $7
    UNION ALL
    SELECT url_id, unified_score, embedding_similarity FROM entity_hour_tops
    WHERE entity_id = t.entity_id AND country = $2 AND language = coalesce($3::text, '*') AND hour >= $8 AND hour < $9
    ORDER BY unified_score DESC, embedding_similarity DESC, url_id LIMIT 1) x`;

/** Of each entity's mentions in the window, the article where it scores highest (ties: similarity, url_id). */
export async function topArticles(db: Db, entityIds: string[], r: TrendingRequest): Promise<Map<string, TopArticleRow>> {
  if (entityIds.length === 0) return new Map();
  const w = splitWindow(r.from, r.to);
  const rows = await queryRows<TopArticleRow>(
    db,
    `SELECT t.entity_id, a.id AS url_id, a.title, a.domain FROM (${TOPS}) t JOIN articles a ON a.id = t.url_id`,
    [entityIds, r.country, r.language, ...w.days, ...w.before, ...w.after],
  );
  return new Map(rows.map((row) => [row.entity_id, row]));
}
