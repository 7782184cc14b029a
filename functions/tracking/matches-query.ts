// Reads a mention list's stored matches (written by its scans) for the /matches endpoint.
import { type GetColumnData, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { inPlan } from '../../shared/db/article-filters';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import { articles, urlProfiles } from '../../shared/db/schema/content';
import { mentionMatches, trackingListItems } from '../../shared/db/schema/tracking';
import { categoriesParam, marketList, type ListedScope } from '../../shared/scope/scope';

export interface MatchFilter {
  listId: string;
  /** The key's scope, its markets resolved and narrowed to those the list watches. */
  keyScope: ListedScope;
  language: string | null;
  from: Date;
  to: Date;
  keywords: string[] | null;
  matchTypes: string[];
  scope: 'all' | 'title' | 'body' | 'both';
  q: string | null;
  limit: number;
}

export interface PublicationRow {
  id: string;
  url: GetColumnData<typeof articles.url>;
  title: GetColumnData<typeof articles.title>;
  publisher: GetColumnData<typeof articles.publisher>;
  domain: GetColumnData<typeof articles.domain>;
  country: GetColumnData<typeof urlProfiles.country>;
  language: GetColumnData<typeof urlProfiles.language>;
  first_seen: string;
  article_first_seen_at: string;
}

export interface HitRow {
  url_id: GetColumnData<typeof mentionMatches.urlId>;
  term_id: string;
  raw_text: NonNullable<GetColumnData<typeof trackingListItems.rawText>>;
  match_type: NonNullable<GetColumnData<typeof trackingListItems.matchType>>;
  field: GetColumnData<typeof mentionMatches.field>;
  matched_text: GetColumnData<typeof mentionMatches.matchedText>;
  snippet: GetColumnData<typeof mentionMatches.snippet>;
}

/** A list's matches `mm`, its terms `i`, the matched articles `a` and their profiles `p`. */
const mm = alias(mentionMatches, 'mm');
const i = alias(trackingListItems, 'i');
const a = alias(articles, 'a');
const p = alias(urlProfiles, 'p');

/** The list's hits under the filter's terms, match types and field scope (with when each was found: `matchedAt`). */
export const hits = (f: Pick<MatchFilter, 'listId' | 'keywords' | 'matchTypes' | 'scope'>, matchedAt = false): SQL => {
  const keywords = sql.param(f.keywords?.map((k) => k.toLowerCase()) ?? null);
  return sql`
  SELECT ${mm.urlId}, ${mm.termId}::text, ${i.rawText}, ${i.matchType}, ${mm.field}, ${mm.matchedText}, ${mm.snippet}${matchedAt ? sql`, ${mm.matchedAt}` : sql``}
  FROM ${mentionMatches} ${mm} JOIN ${trackingListItems} ${i} ON ${i.id} = ${mm.termId}
  WHERE ${mm.listId} = ${f.listId} AND (${keywords}::text[] IS NULL OR lower(${i.rawText}) = ANY(${keywords}::text[])) AND ${i.matchType} = ANY(${sql.param(f.matchTypes)}::text[])
    AND (${f.scope}::text IN ('all', 'both') OR ${mm.field} = ${f.scope}::text)`;
};

/** Newest first by when the article was first seen; one profile (the earliest in scope) per publication. */
export async function readMatches(db: Db, f: MatchFilter) {
  const q = f.q;
  const publications = await sqlRows<PublicationRow>(
    db,
    sql`WITH hits AS (${hits(f)}),
     urls AS (SELECT url_id FROM hits GROUP BY url_id HAVING ${f.scope}::text <> 'both' OR count(DISTINCT field) = 2),
     profiles AS (
       SELECT ${a.id}::text, ${a.url}, ${a.title}, ${a.publisher}, ${a.domain}, ${p.country}, ${p.language}, ${p.firstSeen}, ${a.firstSeenAt} AS article_first_seen_at,
              row_number() OVER (PARTITION BY ${a.id} ORDER BY ${p.firstSeen}, ${p.country}, ${p.language}) AS r
       FROM urls u JOIN ${articles} ${a} ON ${a.id} = u.url_id JOIN ${urlProfiles} ${p} ON ${p.urlId} = ${a.id}
       WHERE ${p.country} = ANY(${sql.param(marketList(f.keyScope))}::text[]) AND (${f.language}::text IS NULL OR ${p.language} = ${f.language}::text)
         AND ${a.firstSeenAt} >= ${f.from.toISOString()} AND ${a.firstSeenAt} < ${f.to.toISOString()}
         AND (${q}::text IS NULL OR ${a.title} ILIKE '%' || ${q}::text || '%' OR ${a.domain} ILIKE '%' || ${q}::text || '%')
         AND ${inPlan(categoriesParam(f.keyScope), a.id)})
     SELECT id, url, title, publisher, domain, country, language, first_seen, article_first_seen_at FROM profiles WHERE r = 1
     ORDER BY article_first_seen_at DESC, id LIMIT ${f.limit}`,
  );
  const found = publications.length
    ? await sqlRows<HitRow>(
        db,
        sql`SELECT * FROM (${hits(f)}) h WHERE url_id = ANY(${sql.param(publications.map((r) => r.id))}::uuid[]) ORDER BY url_id, field DESC, raw_text, match_type`,
      )
    : [];
  return { publications, hits: found };
}
