// Public profile reads: only public columns are selected (publisher profile fields, article title,
// URL, image, publisher label, first-seen time), never project, key or tracking data.
import { type GetColumnData, sql } from 'drizzle-orm';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import { articleEntities, articles, entities, publishers } from '../../shared/db/schema/content';

/** Newest publications returned per profile (the widget shows up to this many). */
export const RECENT_LIMIT = 6;

export interface PublicationRow {
  title: GetColumnData<typeof articles.title>;
  url: GetColumnData<typeof articles.url>;
  imageUrl: GetColumnData<typeof articles.imageUrl>;
  sourceLabel: GetColumnData<typeof articles.publisher>;
  /** first_seen_at as ISO 8601 text. */
  publishedAt: string;
}

/** A requested domain; the publisher's columns are null when it has no publisher row. */
export interface ProfileRow {
  domain: GetColumnData<typeof publishers.domain>;
  kg_id: GetColumnData<typeof publishers.kgId>;
  profile_title: GetColumnData<typeof publishers.profileTitle>;
  followers: GetColumnData<typeof publishers.followers>;
  /** Newest first; empty when the domain has no articles. */
  recent: PublicationRow[];
}

/**
 * Profiles and newest publications of many domains in one statement (a bulk check is one round
 * trip, not one per domain): each domain's publications are a range read of
 * articles_domain_recent_idx through a LATERAL subquery. Domains without a publisher row come back
 * with null profile columns.
 */
export function profilesFor(db: Db, domains: string[], recentLimit = RECENT_LIMIT): Promise<ProfileRow[]> {
  return sqlRows<ProfileRow>(
    db,
    sql`SELECT d.domain, ${publishers.kgId}, ${publishers.profileTitle}, ${publishers.followers}::float8 AS followers,
          coalesce(r.items, '[]'::json) AS recent
     FROM unnest(${sql.param(domains)}::text[]) AS d(domain)
     LEFT JOIN ${publishers} ON ${publishers.domain} = d.domain
     LEFT JOIN LATERAL (
       SELECT json_agg(json_build_object(
                'title', a.title, 'url', a.url, 'imageUrl', a.image_url, 'sourceLabel', a.publisher,
                'publishedAt', to_char(a.first_seen_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"'))
              ORDER BY a.first_seen_at DESC, a.id) AS items
       FROM (SELECT ${articles.title}, ${articles.url}, ${articles.imageUrl}, ${articles.publisher}, ${articles.firstSeenAt}, ${articles.id}
             FROM ${articles} WHERE ${articles.domain} = d.domain ORDER BY ${articles.firstSeenAt} DESC, ${articles.id} LIMIT ${recentLimit}) a
     ) r ON true`,
  );
}

export type MatchReason = 'publisher_name' | 'domain' | 'entity' | 'keyword';

export interface SearchRow {
  domain: GetColumnData<typeof publishers.domain>;
  kg_id: GetColumnData<typeof publishers.kgId>;
  /** Not null: only publishers with a profile match. */
  profile_title: NonNullable<GetColumnData<typeof publishers.profileTitle>>;
  followers: GetColumnData<typeof publishers.followers>;
  reason: MatchReason;
  matched: string;
  score: number;
  reasons: MatchReason[];
}

/** `%`, `_` and `\` are literal in the caller's text. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`);

/**
 * Publishers with a Discover profile that match `q`, best first. Relevance, highest reason wins:
 * profile title or publisher name (exact 1.0, prefix 0.9, word prefix 0.8, anywhere 0.6), domain
 * (exact 0.95, first label 0.9, prefix 0.85, anywhere 0.6; `q` without spaces, so "daily herald"
 * finds dailyherald.com), an entity named `q` (or its kg id) in the publisher's articles (0.5-0.7
 * by share of mentions), `q` as words of its titles (0.2-0.4 by share of matching titles). Ties:
 * more followers first, then domain. Names are accent- and case-folded with search_norm (as the
 * title index), all in one round trip. Keyword shares are over at most KEYWORD_SAMPLE titles. `domain` is `q` normalized as a domain, when it is one.
 */
/**
 * Titles read for the keyword reason: a word as common as "the" matches most titles, and counting
 * them all costs seconds. Shares are taken over the first matches the title index returns.
 */
const KEYWORD_SAMPLE = 5_000;

export function searchProfiles(db: Db, q: string, domain: string | null, limit: number): Promise<SearchRow[]> {
  const label = q.toLowerCase().replace(/\s+/g, '');
  const qLike = likeEscape(q);
  return sqlRows<SearchRow>(
    db,
    sql`WITH q AS (SELECT search_norm(${q}) AS t, '%' || search_norm(${qLike}) || '%' AS anywhere, search_norm(${qLike}) || '%' AS prefix,
                       '% ' || search_norm(${qLike}) || '%' AS word, ${domain ?? ''}::text AS dom, ${label}::text AS label,
                       '%' || ${likeEscape(label)} || '%' AS label_anywhere),
     profiles AS (SELECT ${publishers.domain}, ${publishers.name}, ${publishers.kgId}, ${publishers.profileTitle}, ${publishers.followers},
                         search_norm(${publishers.profileTitle}) AS t1, search_norm(${publishers.name}) AS t2
                  FROM ${publishers} WHERE ${publishers.profileTitle} IS NOT NULL),
     by_name AS (
       SELECT p.domain, 'publisher_name' AS reason,
              CASE WHEN p.t1 = q.t OR p.t2 = q.t THEN 1.0
                   WHEN p.t1 LIKE q.prefix OR p.t2 LIKE q.prefix THEN 0.9
                   WHEN p.t1 LIKE q.word OR p.t2 LIKE q.word THEN 0.8 ELSE 0.6 END AS score,
              CASE WHEN p.t1 LIKE q.anywhere THEN p.profile_title ELSE p.name END AS matched
       FROM profiles p, q WHERE p.t1 LIKE q.anywhere OR p.t2 LIKE q.anywhere),
     by_domain AS (
       SELECT p.domain, 'domain' AS reason,
              CASE WHEN p.domain = q.dom THEN 0.95 WHEN split_part(p.domain, '.', 1) = q.label THEN 0.9
                   WHEN starts_with(p.domain, q.label) THEN 0.85 ELSE 0.6 END AS score,
              p.domain AS matched
       FROM profiles p, q WHERE p.domain = q.dom OR (q.label <> '' AND p.domain LIKE q.label_anywhere)),
     entity_hits AS (
       SELECT ${articles.domain}, min(${entities.name}) AS matched, count(*) AS n
       FROM ${entities} JOIN ${articleEntities} ON ${articleEntities.entityId} = ${entities.id} JOIN ${articles} ON ${articles.id} = ${articleEntities.urlId}
       WHERE ${entities.normalizedName} = lower(trim(${q})) OR ${entities.kgId} = trim(${q})
       GROUP BY ${articles.domain}),
     by_entity AS (
       SELECT h.domain, 'entity' AS reason, 0.5 + 0.2 * h.n / max(h.n) OVER () AS score, h.matched
       FROM entity_hits h JOIN profiles p USING (domain)),
     keyword_hits AS (
       SELECT m.domain, count(*) AS n
       FROM (SELECT ${articles.domain} FROM ${articles}, q
             WHERE to_tsvector('simple', search_norm(${articles.title})) @@ plainto_tsquery('simple', q.t) LIMIT ${sql.raw(String(KEYWORD_SAMPLE))}) m
       GROUP BY m.domain),
     by_keyword AS (
       SELECT h.domain, 'keyword' AS reason, 0.2 + 0.2 * h.n / max(h.n) OVER () AS score, ${q}::text AS matched
       FROM keyword_hits h JOIN profiles p USING (domain)),
     hits AS (SELECT * FROM by_name UNION ALL SELECT * FROM by_domain UNION ALL SELECT * FROM by_entity UNION ALL SELECT * FROM by_keyword),
     ranked AS (
       SELECT domain, reason, matched, score,
              row_number() OVER (PARTITION BY domain ORDER BY score DESC, reason) AS nth,
              array_agg(reason) OVER (PARTITION BY domain ORDER BY score DESC, reason
                                      ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS reasons
       FROM hits)
     SELECT r.domain, p.kg_id, p.profile_title, p.followers::float8 AS followers, r.reason, r.matched,
            round(r.score::numeric, 3)::float8 AS score, r.reasons
     FROM ranked r JOIN profiles p USING (domain)
     WHERE r.nth = 1
     ORDER BY r.score DESC, p.followers DESC NULLS LAST, r.domain
     LIMIT ${limit}`,
  );
}

/** The widget demo's default domains: the two profiles with the most followers, then one publisher without a profile. */
export async function demoDomains(db: Db): Promise<string[]> {
  const rows = await sqlRows<Pick<ProfileRow, 'domain'>>(
    db,
    sql`(SELECT ${publishers.domain} FROM ${publishers} WHERE ${publishers.profileTitle} IS NOT NULL
         ORDER BY ${publishers.followers} DESC NULLS LAST, ${publishers.domain} LIMIT 2)
     UNION ALL (SELECT ${publishers.domain} FROM ${publishers} WHERE ${publishers.profileTitle} IS NULL ORDER BY ${publishers.domain} LIMIT 1)`,
  );
  return rows.map((r) => r.domain);
}
