// Everything a feed item shows: the profile, its article, window totals (profile_windows), breakdowns
// and the article's categories, entities and trend (a page reads them with its keys: queries.ts readPage).
// Breakdowns are read per profile from its own observations over at most 30 days (primary-key
// ranges of the page's profiles only), never for the whole matching set.
import type { Db } from '../../shared/db/client';
import { inPlanCategories } from '../../shared/db/plan-scope';
import { queryRows } from '../../shared/db/raw';
import type { ArticleImage, ArticleMeta, Enrichment } from '../../shared/db/schema';
import { categoriesParam, marketsParam, type Scope } from '../../shared/scope';
import { DAY_MS } from '../../shared/windows';

export interface ItemRow {
  url_id: string;
  url: string;
  domain: string;
  favicon: string;
  country: string;
  language: string;
  title: string;
  summary: string;
  publisher: string;
  first_seen: string;
  last_seen: string;
  avg_position: number;
  windows: Record<string, number | null> | null;
  hourly: number[];
  daily: number[];
  content_language: string;
  content_language_fit: boolean;
  date_published: string | null;
  date_modified: string | null;
  meta: ArticleMeta | null;
  enrichment: Enrichment | null;
  categories: { name: string; confidence: number }[];
  rss_feeds: unknown[] | null;
  trend: { trend_id: string; name: string; semantic_type: string; key_entities: string[]; key_topics: string[] } | null;
  entities: { kg_id: string | null; name: string; type: string }[];
  images: ArticleImage[];
  markdown_content: string | null;
  refreshed_at: string;
}

export interface ItemOptions {
  /** End (exclusive) of the windows: the next whole hour after now. */
  end: Date;
  /** 00:00 UTC of the first of the 30 days of daily_30d. */
  dayStart: Date;
  markdown: boolean;
}

/** `buckets(n, seconds, $s, $e)`: the observations of profile `p` from `$s` to `$e`, summed per bucket. */
const buckets = (count: number, seconds: number, startParam: string, endParam: string) => `ARRAY(
  SELECT coalesce(x.s, 0)::int8 FROM generate_series(0, ${count - 1}) AS g(i)
  LEFT JOIN (
    SELECT floor(extract(epoch FROM o.hour - ${startParam}::timestamptz) / ${seconds})::int AS i, sum(o.impressions) AS s
    FROM observations o
    WHERE (o.url_id, o.country, o.language) = (p.url_id, p.country, p.language) AND o.hour >= ${startParam}::timestamptz AND o.hour < ${endParam}::timestamptz
    GROUP BY 1) x ON x.i = g.i
  ORDER BY g.i)`;

/**
 * The item columns of profile `p`, article `a` and publisher `pub`; parameters from `$n`: the windows'
 * end, the first hour of hourly_24h, the first day of daily_30d, markdown (`bounds`).
 */
export const selectItems = (n: number) => `
SELECT a.id AS url_id, a.url, a.domain, coalesce(nullif(a.favicon_url, ''), pub.favicon_url, '') AS favicon,
  p.country, p.language, a.title, a.summary, a.publisher, p.first_seen, p.last_seen, p.avg_position,
  (SELECT to_json(w) FROM profile_windows w WHERE (w.url_id, w.country, w.language) = (p.url_id, p.country, p.language)) AS windows,
  ${buckets(24, 3600, `$${n + 1}`, `$${n}`)} AS hourly,
  ${buckets(30, 86400, `$${n + 2}`, `$${n}`)} AS daily,
  a.content_language, p.content_language_fit, a.date_published, a.date_modified, a.meta, a.enrichment,
  (SELECT coalesce(json_agg(json_build_object('name', ac.name, 'confidence', ac.confidence) ORDER BY ac.confidence DESC, ac.name), '[]')
     FROM article_categories ac WHERE ac.url_id = a.id) AS categories,
  a.rss_feeds,
  (SELECT json_build_object('trend_id', t.id, 'name', t.label, 'semantic_type', coalesce(t.semantic_type, 'unclassified'), 'key_entities', t.key_entities, 'key_topics', t.key_topics)
     FROM trend_articles ta JOIN trends t ON t.id = ta.trend_id WHERE ta.url_id = a.id
     ORDER BY ta.assignment_score DESC, ta.trend_id LIMIT 1) AS trend,
  (SELECT coalesce(json_agg(json_build_object('kg_id', e.kg_id, 'name', e.name, 'type', ae.type) ORDER BY ae.unified_score DESC, e.name), '[]')
     FROM article_entities ae JOIN entities e ON e.id = ae.entity_id WHERE ae.url_id = a.id) AS entities,
  a.images, CASE WHEN $${n + 3}::bool THEN a.markdown_content END AS markdown_content, a.refreshed_at`;

/** The parameters of `selectItems`. */
export const bounds = (o: ItemOptions) => [
  o.end.toISOString(),
  new Date(o.end.getTime() - DAY_MS).toISOString(),
  o.dayStart.toISOString(),
  o.markdown,
];

/** Every profile of one URL in the scope (its markets, its plan's categories), ordered by country and language. */
export async function loadUrlProfiles(db: Db, scope: Scope, urlId: string, o: ItemOptions): Promise<ItemRow[]> {
  return queryRows<ItemRow>(
    db,
    `${selectItems(4)}
     FROM url_profiles p JOIN articles a ON a.id = p.url_id
     LEFT JOIN publishers pub ON pub.domain = a.domain
     WHERE p.url_id = $1::uuid AND ($2::text[] IS NULL OR p.country = ANY($2::text[]))
       AND ${inPlanCategories('$3', 'a.id')}
     ORDER BY p.country, p.language`,
    [urlId, marketsParam(scope), categoriesParam(scope), ...bounds(o)],
  );
}
