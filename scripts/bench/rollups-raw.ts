// The same answers as shared/rollups/read.ts (seriesByKey at day grain + distinctByKey), computed
// straight from the source tables: memberships from article_entities / articles /
// article_categories, numbers from raw observations. This is what a request would cost without
// the roll-ups; the benchmark proves both give equal results before timing them.
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import { buckets, ceilHour } from '../../shared/rollups/buckets';
import type { KeyedScope, KeyDistinct, KeySeries } from '../../shared/rollups/read';
import { marketList } from '../../shared/scope/scope';

/** Memberships of one kind, read from the tables ingest writes (never from url_dimensions). */
const MEMBERS: Record<string, string> = {
  entity: `SELECT entity_id::text AS key, url_id FROM article_entities WHERE entity_id::text = ANY($1::text[])`,
  publisher: `SELECT domain AS key, id AS url_id FROM articles WHERE domain = ANY($1::text[])`,
  category: `SELECT name AS key, url_id FROM article_categories WHERE name = ANY($1::text[])`,
  trend: `SELECT trend_id::text AS key, url_id FROM trend_articles WHERE trend_id::text = ANY($1::text[])`,
};

function members(kind: string): string {
  const sql = MEMBERS[kind];
  if (!sql) throw new Error(`no raw membership query for kind ${kind}`);
  // entity and trend ids are uuids: compare as uuid so the index on the id column is usable.
  return kind === 'entity'
    ? sql.replace('entity_id::text = ANY($1::text[])', 'entity_id = ANY($1::uuid[])')
    : kind === 'trend'
      ? sql.replace('trend_id::text = ANY($1::text[])', 'trend_id = ANY($1::uuid[])')
      : sql;
}

/** Day-grain series: UTC day buckets cut by the window, as buckets() defines them. */
export async function rawSeries(db: Db, scope: KeyedScope, from: Date, to: Date): Promise<Map<string, KeySeries>> {
  const list = buckets(from, to, 'day');
  const rows = await queryRows<{ key: string; bucket: string; impressions: number; position_sum: number }>(
    db,
    `SELECT m.key, to_char(o.hour AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS bucket,
            sum(o.impressions)::float8 AS impressions, sum(o.impressions::float8 * o.position) AS position_sum
     FROM (${members(scope.kind)}) m JOIN observations o ON o.url_id = m.url_id
     WHERE o.country = ANY($2::text[]) AND ($3::text IS NULL OR o.language = $3) AND o.hour >= $4 AND o.hour < $5
     GROUP BY 1, 2`,
    [scope.keys, marketList(scope.keyScope), scope.language, ceilHour(from).toISOString(), ceilHour(to).toISOString()],
  );
  const index = new Map(list.map((b, i) => [b.ts.toISOString().slice(0, 10), i]));
  const out = new Map<string, KeySeries>();
  for (const key of scope.keys) out.set(key, { impressions: list.map(() => 0), positionSum: list.map(() => 0) });
  for (const r of rows) {
    const s = out.get(r.key)!;
    const i = index.get(r.bucket)!;
    s.impressions[i] += r.impressions;
    s.positionSum[i] += r.position_sum;
  }
  return out;
}

/** Distinct publications, publishers and trends with impressions in the window, and last seen. */
export async function rawDistinct(db: Db, scope: KeyedScope, from: Date, to: Date): Promise<Map<string, KeyDistinct>> {
  const rows = await queryRows<{ key: string; publications: number; publishers: number; trends: number; last_seen: Date | null }>(
    db,
    `WITH active AS (
       SELECT m.key, o.url_id, max(o.hour) + interval '1 hour' AS last_seen
       FROM (${members(scope.kind)}) m JOIN observations o ON o.url_id = m.url_id
       WHERE o.country = ANY($2::text[]) AND ($3::text IS NULL OR o.language = $3) AND o.hour >= $4 AND o.hour < $5
         AND o.impressions > 0
       GROUP BY m.key, o.url_id)
     SELECT a.key, count(DISTINCT a.url_id)::int AS publications, count(DISTINCT ar.domain)::int AS publishers,
            count(DISTINCT ta.trend_id)::int AS trends, max(a.last_seen) AS last_seen
     FROM active a JOIN articles ar ON ar.id = a.url_id LEFT JOIN trend_articles ta ON ta.url_id = a.url_id
     GROUP BY a.key`,
    [scope.keys, marketList(scope.keyScope), scope.language, ceilHour(from).toISOString(), ceilHour(to).toISOString()],
  );
  return new Map(
    rows.map((r) => [
      r.key,
      {
        publications: r.publications,
        publishers: r.publishers,
        trends: r.trends,
        lastSeen: r.last_seen ? new Date(r.last_seen) : null,
      },
    ]),
  );
}
