// The articles of one trend: those the key may see (its markets, its plan's categories), sorted and
// paged, with the exact count, in one round trip that also answers whether the trend is visible.
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import type { TrendRole } from '../../shared/db/values';
import { categoriesParam, marketsParam, type Scope } from '../../shared/scope';
import { articleVisible, trendVisible } from './visibility';

export interface TrendArticleFilter {
  role?: string;
  sortBy: 'first_seen_at' | 'published_at' | 'assignment_score';
  sortOrder: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export interface TrendArticleRow {
  id: string;
  url: string;
  title: string;
  title_en: string | null;
  domain: string;
  publisher: string;
  content_language: string;
  date_published: string | null;
  first_seen_at: string;
  summary_en: string | null;
  image_url: string | null;
  country_code: string | null;
  assignment_method: string;
  assignment_score: number;
  trend_role: TrendRole;
}

const SORT = { first_seen_at: 'first_seen_at', published_at: 'date_published', assignment_score: 'assignment_score' } as const;

/** Undefined when the trend is unknown or not visible to the key. */
export async function listTrendArticles(
  db: Db,
  scope: Scope,
  trendId: string,
  f: TrendArticleFilter,
): Promise<{ total: number; rows: TrendArticleRow[] } | undefined> {
  const order = `m.${SORT[f.sortBy]} ${f.sortOrder === 'asc' ? 'ASC' : 'DESC'} NULLS LAST, m.url_id`;
  const [result] = await queryRows<{ visible: boolean; total: number; rows: TrendArticleRow[] }>(
    db,
    `WITH trend AS (SELECT t.id FROM trends t WHERE t.id = $1 AND ${trendVisible('$2')}),
     matched AS (
       SELECT ta.url_id, ta.assignment_method, ta.assignment_score, ta.trend_role, a.first_seen_at, a.date_published
       FROM trend JOIN trend_articles ta ON ta.trend_id = trend.id JOIN articles a ON a.id = ta.url_id
       WHERE ($3::text IS NULL OR ta.trend_role = $3) AND ${articleVisible('$2', '$4', 'ta.url_id')})
     SELECT EXISTS (SELECT 1 FROM trend) AS visible, (SELECT count(*) FROM matched)::int AS total,
            coalesce((SELECT json_agg(r ORDER BY r.ord) FROM (
              SELECT a.id, a.url, a.title, a.title_en, a.domain, a.publisher, a.content_language, a.date_published, a.first_seen_at,
                     a.summary_en, a.image_url, p.assignment_method, p.assignment_score, p.trend_role, p.ord,
                     -- The market of its first sighting among those the key may read.
                     (SELECT q.country FROM url_profiles q WHERE q.url_id = a.id AND ($2::text[] IS NULL OR q.country = ANY($2::text[]))
                      ORDER BY q.first_seen, q.country LIMIT 1) AS country_code
              FROM (SELECT m.*, row_number() OVER (ORDER BY ${order}) AS ord FROM matched m ORDER BY ${order} LIMIT $5 OFFSET $6) p
              JOIN articles a ON a.id = p.url_id) r), '[]') AS rows`,
    [trendId, marketsParam(scope), f.role ?? null, categoriesParam(scope), f.limit, f.offset],
  );
  return result?.visible ? { total: result.total, rows: result.rows } : undefined;
}
