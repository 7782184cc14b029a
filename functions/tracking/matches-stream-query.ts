// Reads of GET .../matches/stream: a mention list's publications in the order their first hit (under the
// stream's filters) was found. A scan keeps a hit's matched_at and gives new hits a time later than
// every earlier one of the list, committing one scan of a list after the other (functions/jobs/scan.ts), so a reader
// that saw the list's latest matched_at M will only ever see later publications after M.
import { sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { inPlan } from '../../shared/db/article-filters';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import { articles, urlProfiles } from '../../shared/db/schema/content';
import { mentionMatches } from '../../shared/db/schema/tracking';
import { categoriesParam, marketList, type ListedScope } from '../../shared/scope/scope';
import type { Mention } from './matches-schema';
import { hits, type PublicationRow } from './matches-query';

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

/** The matched articles `a` and their profiles `p`. */
const a = alias(articles, 'a');
const p = alias(urlProfiles, 'p');

/** Up to `limit` publications found after `after`, with their hits, and the list's latest matched_at. */
export async function readFound(db: Db, f: StreamFilter, after: Found, limit: number): Promise<{ rows: FoundRow[]; head: number }> {
  const result = await sqlRows<FoundRow & { head: string }>(
    db,
    sql`WITH hits AS (${hits(f, true)}),
     head AS (SELECT coalesce((extract(epoch FROM max(${mentionMatches.matchedAt})) * 1000000)::int8, 0) AS us FROM ${mentionMatches} WHERE ${mentionMatches.listId} = ${f.listId}),
     urls AS (
       SELECT url_id, (extract(epoch FROM min(matched_at)) * 1000000)::int8 AS us FROM hits GROUP BY url_id
       HAVING ${f.scope}::text <> 'both' OR count(DISTINCT field) = 2),
     found AS (
       SELECT u.us, ${a.id}::text, ${a.url}, ${a.title}, ${a.publisher}, ${a.domain}, ${p.country}, ${p.language}, ${p.firstSeen}, ${a.firstSeenAt} AS article_first_seen_at,
              row_number() OVER (PARTITION BY ${a.id} ORDER BY ${p.firstSeen}, ${p.country}, ${p.language}) AS r
       FROM urls u JOIN ${articles} ${a} ON ${a.id} = u.url_id JOIN ${urlProfiles} ${p} ON ${p.urlId} = ${a.id}
       WHERE (u.us > ${after.us}::int8 OR (u.us = ${after.us}::int8 AND ${after.u}::uuid IS NOT NULL AND u.url_id > ${after.u}::uuid)) AND u.us <= (SELECT us FROM head)
         AND ${p.country} = ANY(${sql.param(marketList(f.keyScope))}::text[]) AND (${f.language}::text IS NULL OR ${p.language} = ${f.language}::text) AND ${a.firstSeenAt} >= ${f.from.toISOString()}
         AND ${inPlan(categoriesParam(f.keyScope), a.id)}),
     page AS (SELECT * FROM found WHERE r = 1 ORDER BY us, id LIMIT ${limit})
     SELECT (SELECT us FROM head)::text AS head, x.* FROM (SELECT 1) one LEFT JOIN LATERAL (
       SELECT pg.us::text AS us, pg.id, pg.url, pg.title, pg.publisher, pg.domain, pg.country, pg.language, pg.first_seen, pg.article_first_seen_at,
         (SELECT json_agg(json_build_object('term_id', h.term_id, 'raw_text', h.raw_text, 'match_type', h.match_type, 'field', h.field,
                  'matched_text', h.matched_text, 'snippet', h.snippet) ORDER BY h.field DESC, h.raw_text, h.match_type)
            FROM hits h WHERE h.url_id = pg.id::uuid) AS mentions
       FROM page pg) x ON true
     ORDER BY x.us::int8, x.id`,
  );
  return { rows: result.filter((r) => r.id !== null).map(({ head: _, ...row }) => row), head: Number(result[0]?.head ?? 0) };
}

/** The list's latest matched_at: where a stream that wants only what is new starts. */
export async function latestFound(db: Db, listId: string): Promise<number> {
  const [row] = await sqlRows<{ us: string }>(
    db,
    sql`SELECT coalesce((extract(epoch FROM max(${mentionMatches.matchedAt})) * 1000000)::int8, 0)::text AS us FROM ${mentionMatches} WHERE ${mentionMatches.listId} = ${listId}`,
  );
  return Number(row?.us ?? 0);
}
