// Trend rows as the v1 payloads shape them: cabinet_url, timestamps with +00:00, derived numbers.
import { cabinetUrl, iso } from '../../shared/format';
import { computeFeatures, dailyCounts, utcDay } from '../../shared/trends/features';
import type { TrendArticleRow } from './articles-query';
import { labelsOf } from './labels';
import type { EdgeRow, TrendDetailRow, TrendRow } from './queries';

/** The spec's sparkline length. */
export const SPARKLINE_DAYS = 180;

export function toTrend(row: TrendRow, appUrl: string) {
  return {
    id: row.id,
    cabinet_url: cabinetUrl(appUrl, 'trend', row.id),
    ...labelsOf(row),
    state: row.state,
    structural_type: row.structural_type,
    // Never null: an untyped trend is `unclassified`, the value the list's `semantic_type` filter takes for it.
    semantic_type: row.semantic_type ?? ('unclassified' as const),
    semantic_type_confidence: Number(row.semantic_type_confidence),
    article_count: Number(row.article_count),
    first_seen_at: iso(row.first_seen_at),
    last_article_at: iso(row.last_article_at),
    peak_date: row.peak_date ? row.peak_date.slice(0, 10) : null,
    expected_next_peak: row.expected_next_peak ? row.expected_next_peak.slice(0, 10) : null,
    key_entities: row.key_entities ?? [],
    key_topics: row.key_topics ?? [],
    topic_id: row.topic_id,
    primary_country: row.primary_country.toUpperCase(),
    country_scope: (row.country_scope ?? []).map((c) => c.toUpperCase()),
  };
}

/** Detail: the sparkline and features are computed here from the trend's daily series and `now`. */
export function toTrendDetail(row: TrendDetailRow, appUrl: string, now: Date) {
  const today = utcDay(now);
  return {
    ...toTrend(row, appUrl),
    daily_counts_180d: dailyCounts(row.days, today, SPARKLINE_DAYS),
    features: computeFeatures({ days: row.days, today, totalArticles: Number(row.article_count), first48h: Number(row.first48h) }),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function toTrendArticle(row: TrendArticleRow, appUrl: string) {
  return {
    id: row.id,
    url: row.url,
    cabinet_url: cabinetUrl(appUrl, 'article', row.id),
    title: row.title,
    title_en: row.title_en,
    domain: row.domain,
    publisher: row.publisher,
    language: row.content_language,
    published_at: iso(row.date_published),
    first_seen_at: iso(row.first_seen_at),
    summary_en: row.summary_en,
    image_url: row.image_url,
    country_code: row.country_code,
    assignment_method: row.assignment_method,
    assignment_score: Number(row.assignment_score),
    trend_role: row.trend_role,
  };
}

export function toEdge(row: EdgeRow, side: 'parent' | 'child') {
  return {
    [`${side}_id`]: row.id,
    [`${side}_label`]: row.label,
    [`${side}_state`]: row.state,
    [`${side}_structural_type`]: row.structural_type,
    relation_type: row.relation_type,
    strength: Number(row.strength),
    established_at: iso(row.established_at),
  };
}
