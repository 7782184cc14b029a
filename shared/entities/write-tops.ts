// Keeps entity_hour_tops / entity_day_tops exact (drizzle/0010_trending_tops.sql, docs/ENTITIES.md):
// per entity, market, language (or '*') and hour / day, the best of the entity's mentions first seen
// in that bucket. A max is not invertible (a rescored, dropped or moved mention may have been the
// best), so every bucket an ingest batch touches is recomputed whole from article_entities and
// url_profiles, once, at the end of the batch when both are final. Touched buckets: the (entity,
// market, hour) of every entity_hours contribution (old and new profiles x old and new links) and
// of every link of a rewritten article (its scores may have changed without any membership change).
import { ENTITY_ALL } from '../db/schema/entities';
import type { Queryable } from '../db/queryable';

/** Touched (entity, market, hour) buckets, as `entity_id|country|epoch seconds of the hour`. */
export type TopKeys = Set<string>;

/**
 * The best occurrence per (entity, market, language, hour) and per (entity, market, '*', hour) of
 * the candidate rows `c` (entity_id, country, language, hour, url_id, unified_score, embedding_similarity).
 * Ties: unified_score, then embedding_similarity, descending; then url_id ascending.
 */
export const TOPS_OF = (c: string) => `
  (SELECT DISTINCT ON (entity_id, country, language, hour) entity_id, country, language, hour, url_id, unified_score, embedding_similarity
   FROM ${c} ORDER BY entity_id, country, language, hour, unified_score DESC, embedding_similarity DESC, url_id)
  UNION ALL
  (SELECT DISTINCT ON (entity_id, country, hour) entity_id, country, '${ENTITY_ALL}', hour, url_id, unified_score, embedding_similarity
   FROM ${c} ORDER BY entity_id, country, hour, unified_score DESC, embedding_similarity DESC, url_id)`;

const COLS = 'entity_id, country, language, hour, url_id, unified_score, embedding_similarity';
const DAY_COLS = 'entity_id, country, language, day, url_id, unified_score, embedding_similarity';

/** Day tops of the days of `k` (entity_id, country, day): the best of the day's hour tops. */
const DAY_TOPS_OF = (k: string) => `
  SELECT DISTINCT ON (t.entity_id, t.country, t.language, k.day) t.entity_id, t.country, t.language, k.day,
    t.url_id, t.unified_score, t.embedding_similarity
  FROM ${k} JOIN entity_hour_tops t ON t.entity_id = k.entity_id AND t.country = k.country
    AND t.hour >= k.day::timestamp AT TIME ZONE 'UTC' AND t.hour < (k.day + 1)::timestamp AT TIME ZONE 'UTC'
  ORDER BY t.entity_id, t.country, t.language, k.day, t.unified_score DESC, t.embedding_similarity DESC, t.url_id`;

const HOUR_KEYS = `(SELECT DISTINCT entity_id, country, to_timestamp(at) AS hour
  FROM unnest($1::uuid[], $2::text[], $3::bigint[]) AS u(entity_id, country, at))`;
const DAY_KEYS = `(SELECT DISTINCT entity_id, country, (to_timestamp(at) AT TIME ZONE 'UTC')::date AS day
  FROM unnest($1::uuid[], $2::text[], $3::bigint[]) AS u(entity_id, country, at))`;

const RECOMPUTE = [
  `DELETE FROM entity_hour_tops t USING ${HOUR_KEYS} k WHERE (t.entity_id, t.country, t.hour) = (k.entity_id, k.country, k.hour)`,
  // The profiles of each touched market-hour, one range read each (url_profiles_country_first_seen_idx;
  // OFFSET 0 keeps the lateral a per-hour read), their links by url_id, then the touched entities.
  // Forced in this order: left to itself the planner went through each touched entity's links
  // (thousands for a famous entity), or joined every profile to every hour (docs/BENCHMARKS.md "Entities").
  `INSERT INTO entity_hour_tops (${COLS})
   WITH k AS MATERIALIZED ${HOUR_KEYS},
   h AS MATERIALIZED (SELECT DISTINCT country, hour FROM k),
   hp AS MATERIALIZED (
     SELECT p.url_id, h.country, p.language, h.hour FROM h CROSS JOIN LATERAL (
       SELECT url_id, language FROM url_profiles
       WHERE country = h.country AND first_seen >= h.hour AND first_seen < h.hour + interval '1 hour' OFFSET 0) p),
   l AS MATERIALIZED (
     SELECT ae.entity_id, hp.country, hp.language, hp.hour, ae.url_id, ae.unified_score, ae.embedding_similarity
     FROM hp JOIN article_entities ae ON ae.url_id = hp.url_id),
   c AS MATERIALIZED (SELECT l.* FROM l JOIN k ON (k.entity_id, k.country, k.hour) = (l.entity_id, l.country, l.hour))
   ${TOPS_OF('c')}`,
  `DELETE FROM entity_day_tops t USING ${DAY_KEYS} k WHERE (t.entity_id, t.country, t.day) = (k.entity_id, k.country, k.day)`,
  `INSERT INTO entity_day_tops (${DAY_COLS}) ${DAY_TOPS_OF(`${DAY_KEYS} k`)}`,
];

/** Records touched buckets from rows with entity_id, country and `at` (epoch seconds of the hour). */
export function addTopKeys(keys: TopKeys, rows: { entity_id: string; country: string; at: string | number }[]): void {
  for (const r of rows) keys.add(`${r.entity_id}|${r.country}|${r.at}`);
}

/** The buckets of the current links x current profiles of `urls` (rewritten articles: rescored links). */
export async function addLinkTopKeys(db: Queryable, keys: TopKeys, urls: string[]): Promise<void> {
  if (urls.length === 0) return;
  const { rows } = await db.query<{ entity_id: string; country: string; at: string }>(
    `SELECT DISTINCT ae.entity_id, p.country, extract(epoch FROM date_trunc('hour', p.first_seen))::bigint::text AS at
     FROM article_entities ae JOIN url_profiles p ON p.url_id = ae.url_id WHERE ae.url_id = ANY($1::uuid[])`,
    [urls],
  );
  addTopKeys(keys, rows);
}

/** Recomputes every touched bucket (hour and its day) from the final rows of the batch. */
export async function refreshTops(db: Queryable, keys: TopKeys): Promise<void> {
  if (keys.size === 0) return;
  const parts = [...keys].map((k) => k.split('|'));
  const params = [parts.map((p) => p[0]), parts.map((p) => p[1]), parts.map((p) => p[2])];
  for (const sql of RECOMPUTE) await db.query(sql, params);
}

/** Set-based rebuild of both tables (part of REBUILD_ENTITIES). */
export const REBUILD_TOPS = [
  `TRUNCATE entity_hour_tops, entity_day_tops`,
  `INSERT INTO entity_hour_tops (${COLS})
   WITH c AS MATERIALIZED (
     SELECT ae.entity_id, p.country, p.language, date_trunc('hour', p.first_seen) AS hour, ae.url_id, ae.unified_score, ae.embedding_similarity
     FROM url_profiles p JOIN article_entities ae ON ae.url_id = p.url_id)
   ${TOPS_OF('c')}`,
  `INSERT INTO entity_day_tops (${DAY_COLS})
   SELECT DISTINCT ON (entity_id, country, language, day) entity_id, country, language, day, url_id, unified_score, embedding_similarity
   FROM (SELECT *, (hour AT TIME ZONE 'UTC')::date AS day FROM entity_hour_tops) t
   ORDER BY entity_id, country, language, day, unified_score DESC, embedding_similarity DESC, url_id`,
  `ANALYZE entity_hour_tops, entity_day_tops`,
];
