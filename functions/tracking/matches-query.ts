// Reads a mention list's stored matches (written by its scans) for the /matches endpoint.
import type { Db } from '../../shared/db/client';
import { inPlanCategories } from '../../shared/db/plan-scope';
import { queryRows } from '../../shared/db/raw';
import type { MatchField, MatchType } from '../../shared/db/values';
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
  url: string;
  title: string;
  publisher: string;
  domain: string;
  country: string;
  language: string;
  first_seen: string;
  article_first_seen_at: string;
}

export interface HitRow {
  url_id: string;
  term_id: string;
  raw_text: string;
  match_type: MatchType;
  field: MatchField;
  matched_text: string;
  snippet: string;
}

const HITS = `
  SELECT mm.url_id, mm.term_id::text, i.raw_text, i.match_type, mm.field, mm.matched_text, mm.snippet
  FROM mention_matches mm JOIN tracking_list_items i ON i.id = mm.term_id
  WHERE mm.list_id = $1 AND ($2::text[] IS NULL OR lower(i.raw_text) = ANY($2::text[])) AND i.match_type = ANY($3::text[])
    AND ($4 IN ('all', 'both') OR mm.field = $4)`;

/** Newest first by when the article was first seen; one profile (the earliest in scope) per publication. */
export async function readMatches(db: Db, f: MatchFilter) {
  const base = [f.listId, f.keywords?.map((k) => k.toLowerCase()) ?? null, f.matchTypes, f.scope];
  const publications = await queryRows<PublicationRow>(
    db,
    `WITH hits AS (${HITS}),
     urls AS (SELECT url_id FROM hits GROUP BY url_id HAVING $4 <> 'both' OR count(DISTINCT field) = 2),
     profiles AS (
       SELECT a.id::text, a.url, a.title, a.publisher, a.domain, p.country, p.language, p.first_seen, a.first_seen_at AS article_first_seen_at,
              row_number() OVER (PARTITION BY a.id ORDER BY p.first_seen, p.country, p.language) AS r
       FROM urls u JOIN articles a ON a.id = u.url_id JOIN url_profiles p ON p.url_id = a.id
       WHERE p.country = ANY($5::text[]) AND ($6::text IS NULL OR p.language = $6)
         AND a.first_seen_at >= $7 AND a.first_seen_at < $8
         AND ($9::text IS NULL OR a.title ILIKE '%' || $9 || '%' OR a.domain ILIKE '%' || $9 || '%')
         AND ${inPlanCategories('$11', 'a.id')})
     SELECT id, url, title, publisher, domain, country, language, first_seen, article_first_seen_at FROM profiles WHERE r = 1
     ORDER BY article_first_seen_at DESC, id LIMIT $10`,
    [...base, marketList(f.keyScope), f.language, f.from.toISOString(), f.to.toISOString(), f.q, f.limit, categoriesParam(f.keyScope)],
  );
  const hits = publications.length
    ? await queryRows<HitRow>(
        db,
        `SELECT * FROM (${HITS}) h WHERE url_id = ANY($5::uuid[]) ORDER BY url_id, field DESC, raw_text, match_type`,
        [...base, publications.map((p) => p.id)],
      )
    : [];
  return { publications, hits };
}
