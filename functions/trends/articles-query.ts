// The articles of one trend: those the key may see (its markets, its plan's categories), sorted and
// paged, with the exact count, in one round trip that also answers whether the trend is visible.
import { type GetColumnData, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import { articles, urlProfiles } from '../../shared/db/schema/content';
import { trendArticles, trends } from '../../shared/db/schema/trends';
import type { TrendRole } from '../../shared/db/values';
import { marketsParam, type Scope } from '../../shared/scope/scope';
import { articleVisible, trendVisible } from './visibility';

export interface TrendArticleFilter {
  role?: string;
  sortBy: 'first_seen_at' | 'published_at' | 'assignment_score';
  sortOrder: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export interface TrendArticleRow {
  id: GetColumnData<typeof articles.id>;
  url: GetColumnData<typeof articles.url>;
  title: GetColumnData<typeof articles.title>;
  title_en: GetColumnData<typeof articles.titleEn>;
  domain: GetColumnData<typeof articles.domain>;
  publisher: GetColumnData<typeof articles.publisher>;
  content_language: GetColumnData<typeof articles.contentLanguage>;
  /** Timestamps arrive as Postgres text (the driver's parsers for them are the identity). */
  date_published: string | null;
  first_seen_at: string;
  summary_en: GetColumnData<typeof articles.summaryEn>;
  image_url: GetColumnData<typeof articles.imageUrl>;
  country_code: GetColumnData<typeof urlProfiles.country> | null;
  assignment_method: GetColumnData<typeof trendArticles.assignmentMethod>;
  assignment_score: GetColumnData<typeof trendArticles.assignmentScore>;
  trend_role: TrendRole;
}

/** The trend, its articles and their profiles, by the names the statement reads them under. */
const t = alias(trends, 't');
const a = alias(articles, 'a');
const q = alias(urlProfiles, 'q');

const SORT = { first_seen_at: 'first_seen_at', published_at: 'date_published', assignment_score: 'assignment_score' } as const;

/** Undefined when the trend is unknown or not visible to the key. */
export async function listTrendArticles(
  db: Db,
  scope: Scope,
  trendId: string,
  f: TrendArticleFilter,
): Promise<{ total: number; rows: TrendArticleRow[] } | undefined> {
  const order = sql.raw(`m.${SORT[f.sortBy]} ${f.sortOrder === 'asc' ? 'ASC' : 'DESC'} NULLS LAST, m.url_id`);
  const markets = sql.param(marketsParam(scope));
  const role = f.role ?? null;
  const [result] = await sqlRows<{ visible: boolean; total: number; rows: TrendArticleRow[] }>(
    db,
    sql`WITH trend AS (SELECT ${t.id} FROM ${trends} ${t} WHERE ${t.id} = ${trendId} AND ${trendVisible(scope, t)}),
     matched AS (
       SELECT ${trendArticles.urlId}, ${trendArticles.assignmentMethod}, ${trendArticles.assignmentScore}, ${trendArticles.trendRole},
              ${a.firstSeenAt}, ${a.datePublished}
       FROM trend JOIN ${trendArticles} ON ${trendArticles.trendId} = trend.id JOIN ${articles} ${a} ON ${a.id} = ${trendArticles.urlId}
       WHERE (${role}::text IS NULL OR ${trendArticles.trendRole} = ${role}) AND ${articleVisible(scope, trendArticles.urlId)})
     SELECT EXISTS (SELECT 1 FROM trend) AS visible, (SELECT count(*) FROM matched)::int AS total,
            coalesce((SELECT json_agg(r ORDER BY r.ord) FROM (
              SELECT ${a.id}, ${a.url}, ${a.title}, ${a.titleEn}, ${a.domain}, ${a.publisher}, ${a.contentLanguage}, ${a.datePublished}, ${a.firstSeenAt},
                     ${a.summaryEn}, ${a.imageUrl}, p.assignment_method, p.assignment_score, p.trend_role, p.ord,
                     -- The market of its first sighting among those the key may read.
                     (SELECT ${q.country} FROM ${urlProfiles} ${q} WHERE ${q.urlId} = ${a.id} AND (${markets}::text[] IS NULL OR ${q.country} = ANY(${markets}::text[]))
                      ORDER BY ${q.firstSeen}, ${q.country} LIMIT 1) AS country_code
              FROM (SELECT m.*, row_number() OVER (ORDER BY ${order}) AS ord FROM matched m ORDER BY ${order} LIMIT ${f.limit} OFFSET ${f.offset}) p
              JOIN ${articles} ${a} ON ${a.id} = p.url_id) r), '[]') AS rows`,
  );
  return result?.visible ? { total: result.total, rows: result.rows } : undefined;
}
