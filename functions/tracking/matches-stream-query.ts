// Reads of GET .../matches/stream: a mention list's publications in the order their first hit (under the
// stream's filters) was found. A scan keeps a hit's matched_at and gives new hits a time later than
// every earlier one of the list, committing one scan of a list after the other (functions/jobs/scan.ts), so a reader
// that saw the list's latest matched_at M will only ever see later publications after M.
import type { Db } from '../../shared/db/client';
import { inPlanCategories } from '../../shared/db/plan-scope';
import { queryRows } from '../../shared/db/raw';
import { categoriesParam, marketList, type ListedScope } from '../../shared/scope/scope';
import type { Mention } from './matches-schema';
import type { PublicationRow } from './matches-query';

/** After publication `u` first matched at `us` (microseconds since the epoch); u null: after all of `us`. */
export interface Found {
  us: number;
  u: string | null;
}

export const compareFound = (a: Found, b: Found): number => {
  if (a.us !== b.us) return a.us - b.us;
  if (a.u === null || b.u === null) return a.u === b.u ? 0 : a.u === null ? 1 : -1;
  return a.u < b.u ? -1 : a.u > b.u ? 1 : 0;
};

export interface StreamFilter {
  listId: string;
  keyScope: ListedScope;
  language: string | null;
  /** articles first seen from (the plan's history). */
  from: Date;
  keywords: string[] | null;
  matchTypes: string[];
  scope: 'all' | 'title' | 'body' | 'both';
}

export type FoundRow = PublicationRow & { us: string; mentions: Mention[] };

/** Up to `limit` publications found after `after`, with their hits, and the list's latest matched_at. */
export async function readFound(db: Db, f: StreamFilter, after: Found, limit: number): Promise<{ rows: FoundRow[]; head: number }> {
  const result = await queryRows<FoundRow & { head: string }>(
    db,
    `WITH hits AS (
       SELECT mm.url_id, mm.term_id::text, i.raw_text, i.match_type, mm.field, mm.matched_text, mm.snippet, mm.matched_at
       FROM mention_matches mm JOIN tracking_list_items i ON i.id = mm.term_id
       WHERE mm.list_id = $1 AND ($2::text[] IS NULL OR lower(i.raw_text) = ANY($2::text[])) AND i.match_type = ANY($3::text[])
         AND ($4 IN ('all', 'both') OR mm.field = $4)),
     head AS (SELECT coalesce((extract(epoch FROM max(matched_at)) * 1000000)::int8, 0) AS us FROM mention_matches WHERE list_id = $1),
     urls AS (
       SELECT url_id, (extract(epoch FROM min(matched_at)) * 1000000)::int8 AS us FROM hits GROUP BY url_id
       HAVING $4 <> 'both' OR count(DISTINCT field) = 2),
     found AS (
       SELECT u.us, a.id::text, a.url, a.title, a.publisher, a.domain, p.country, p.language, p.first_seen, a.first_seen_at AS article_first_seen_at,
              row_number() OVER (PARTITION BY a.id ORDER BY p.first_seen, p.country, p.language) AS r
       FROM urls u JOIN articles a ON a.id = u.url_id JOIN url_profiles p ON p.url_id = a.id
       WHERE (u.us > $7::int8 OR (u.us = $7::int8 AND $8::uuid IS NOT NULL AND u.url_id > $8::uuid)) AND u.us <= (SELECT us FROM head)
         AND p.country = ANY($5::text[]) AND ($6::text IS NULL OR p.language = $6) AND a.first_seen_at >= $9
         AND ${inPlanCategories('$10', 'a.id')}),
     page AS (SELECT * FROM found WHERE r = 1 ORDER BY us, id LIMIT $11)
     SELECT (SELECT us FROM head)::text AS head, x.* FROM (SELECT 1) one LEFT JOIN LATERAL (
       SELECT pg.us::text AS us, pg.id, pg.url, pg.title, pg.publisher, pg.domain, pg.country, pg.language, pg.first_seen, pg.article_first_seen_at,
         (SELECT json_agg(json_build_object('term_id', h.term_id, 'raw_text', h.raw_text, 'match_type', h.match_type, 'field', h.field,
                  'matched_text', h.matched_text, 'snippet', h.snippet) ORDER BY h.field DESC, h.raw_text, h.match_type)
            FROM hits h WHERE h.url_id = pg.id::uuid) AS mentions
       FROM page pg) x ON true
     ORDER BY x.us::int8, x.id`,
    [
      f.listId,
      f.keywords?.map((k) => k.toLowerCase()) ?? null,
      f.matchTypes,
      f.scope,
      marketList(f.keyScope),
      f.language,
      after.us,
      after.u,
      f.from.toISOString(),
      categoriesParam(f.keyScope),
      limit,
    ],
  );
  return { rows: result.filter((r) => r.id !== null).map(({ head: _, ...row }) => row), head: Number(result[0]?.head ?? 0) };
}

/** The list's latest matched_at: where a stream that wants only what is new starts. */
export async function latestFound(db: Db, listId: string): Promise<number> {
  const [row] = await queryRows<{ us: string }>(
    db,
    'SELECT coalesce((extract(epoch FROM max(matched_at)) * 1000000)::int8, 0)::text AS us FROM mention_matches WHERE list_id = $1',
    [listId],
  );
  return Number(row?.us ?? 0);
}
