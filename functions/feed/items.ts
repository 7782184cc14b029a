// Everything a feed item shows: the profile, its article, window totals (profile_windows), breakdowns
// and the article's categories, entities and trend (a page reads them with its keys: queries.ts readPage).
// Breakdowns are read per profile from its own observations over at most 30 days (primary-key
// ranges of the page's profiles only), never for the whole matching set.
import { type GetColumnData, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { inPlan } from '../../shared/db/article-filters';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import {
  articleCategories,
  articleEntities,
  articles,
  entities,
  observations,
  publishers,
  urlProfiles,
} from '../../shared/db/schema/content';
import { profileWindows } from '../../shared/db/schema/feed';
import { trendArticles, trends } from '../../shared/db/schema/trends';
import { categoriesParam, marketsParam, type Scope } from '../../shared/scope/scope';
import { DAY_MS } from '../../shared/time/windows';

export interface ItemRow {
  url_id: GetColumnData<typeof articles.id>;
  url: GetColumnData<typeof articles.url>;
  domain: GetColumnData<typeof articles.domain>;
  favicon: string;
  country: GetColumnData<typeof urlProfiles.country>;
  language: GetColumnData<typeof urlProfiles.language>;
  title: GetColumnData<typeof articles.title>;
  summary: GetColumnData<typeof articles.summary>;
  publisher: GetColumnData<typeof articles.publisher>;
  /** Timestamps arrive as Postgres text (the driver's parsers for them are the identity). */
  first_seen: string;
  last_seen: string;
  avg_position: GetColumnData<typeof urlProfiles.avgPosition>;
  windows: Record<string, number | null> | null;
  hourly: number[];
  daily: number[];
  content_language: GetColumnData<typeof articles.contentLanguage>;
  content_language_fit: GetColumnData<typeof urlProfiles.contentLanguageFit>;
  date_published: string | null;
  date_modified: string | null;
  meta: GetColumnData<typeof articles.meta>;
  enrichment: GetColumnData<typeof articles.enrichment>;
  categories: { name: GetColumnData<typeof articleCategories.name>; confidence: GetColumnData<typeof articleCategories.confidence> }[];
  rss_feeds: GetColumnData<typeof articles.rssFeeds>;
  trend: { trend_id: string; name: string; semantic_type: string; key_entities: string[]; key_topics: string[] } | null;
  entities: {
    kg_id: GetColumnData<typeof entities.kgId>;
    name: GetColumnData<typeof entities.name>;
    type: GetColumnData<typeof articleEntities.type>;
  }[];
  images: GetColumnData<typeof articles.images>;
  markdown_content: GetColumnData<typeof articles.markdownContent>;
  refreshed_at: string;
}

/** The tables of an item under the names its statements join them by: profile `p`, article `a`, publisher `pub`. */
export const p = alias(urlProfiles, 'p');
export const a = alias(articles, 'a');
export const pub = alias(publishers, 'pub');

export interface ItemOptions {
  /** End (exclusive) of the windows: the next whole hour after now. */
  end: Date;
  /** 00:00 UTC of the first of the 30 days of daily_30d. */
  dayStart: Date;
  markdown: boolean;
}

/** The observations of profile `p` from `start` to `end` (ISO 8601), summed per bucket of `seconds`. */
const buckets = (count: number, seconds: number, start: string, end: string) => sql`ARRAY(
  SELECT coalesce(x.s, 0)::int8 FROM generate_series(0, ${sql.raw(String(count - 1))}) AS g(i)
  LEFT JOIN (
    SELECT floor(extract(epoch FROM ${observations.hour} - ${start}::timestamptz) / ${sql.raw(String(seconds))})::int AS i, sum(${observations.impressions}) AS s
    FROM ${observations}
    WHERE (${observations.urlId}, ${observations.country}, ${observations.language}) = (${p.urlId}, ${p.country}, ${p.language})
      AND ${observations.hour} >= ${start}::timestamptz AND ${observations.hour} < ${end}::timestamptz
    GROUP BY 1) x ON x.i = g.i
  ORDER BY g.i)`;

const w = alias(profileWindows, 'w');

/**
 * The item columns of profile `p`, article `a` and publisher `pub`, with the windows ending at `o.end`,
 * hourly_24h over the day before it and daily_30d from `o.dayStart`.
 */
export function selectItems(o: ItemOptions): SQL {
  const end = o.end.toISOString();
  return sql`
SELECT ${a.id} AS url_id, ${a.url}, ${a.domain}, coalesce(nullif(${a.faviconUrl}, ''), ${pub.faviconUrl}, '') AS favicon,
  ${p.country}, ${p.language}, ${a.title}, ${a.summary}, ${a.publisher}, ${p.firstSeen}, ${p.lastSeen}, ${p.avgPosition},
  (SELECT to_json(${w}) FROM ${profileWindows} ${w} WHERE (${w.urlId}, ${w.country}, ${w.language}) = (${p.urlId}, ${p.country}, ${p.language})) AS windows,
  ${buckets(24, 3600, new Date(o.end.getTime() - DAY_MS).toISOString(), end)} AS hourly,
  ${buckets(30, 86400, o.dayStart.toISOString(), end)} AS daily,
  ${a.contentLanguage}, ${p.contentLanguageFit}, ${a.datePublished}, ${a.dateModified}, ${a.meta}, ${a.enrichment},
  (SELECT coalesce(json_agg(json_build_object('name', ${articleCategories.name}, 'confidence', ${articleCategories.confidence})
     ORDER BY ${articleCategories.confidence} DESC, ${articleCategories.name}), '[]')
     FROM ${articleCategories} WHERE ${articleCategories.urlId} = ${a.id}) AS categories,
  ${a.rssFeeds},
  (SELECT json_build_object('trend_id', ${trends.id}, 'name', ${trends.label}, 'semantic_type', coalesce(${trends.semanticType}, 'unclassified'),
     'key_entities', ${trends.keyEntities}, 'key_topics', ${trends.keyTopics})
     FROM ${trendArticles} JOIN ${trends} ON ${trends.id} = ${trendArticles.trendId} WHERE ${trendArticles.urlId} = ${a.id}
     ORDER BY ${trendArticles.assignmentScore} DESC, ${trendArticles.trendId} LIMIT 1) AS trend,
  (SELECT coalesce(json_agg(json_build_object('kg_id', ${entities.kgId}, 'name', ${entities.name}, 'type', ${articleEntities.type})
     ORDER BY ${articleEntities.unifiedScore} DESC, ${entities.name}), '[]')
     FROM ${articleEntities} JOIN ${entities} ON ${entities.id} = ${articleEntities.entityId} WHERE ${articleEntities.urlId} = ${a.id}) AS entities,
  ${a.images}, CASE WHEN ${o.markdown}::bool THEN ${a.markdownContent} END AS markdown_content, ${a.refreshedAt}`;
}

/** The profile, article and publisher of the keys `k` (url_id, country, language) a statement pages through. */
export const ITEM_JOINS = sql`JOIN ${urlProfiles} ${p} ON (${p.urlId}, ${p.country}, ${p.language}) = (k.url_id, k.country, k.language)
       JOIN ${articles} ${a} ON ${a.id} = k.url_id
       LEFT JOIN ${publishers} ${pub} ON ${pub.domain} = ${a.domain}`;

/** Every profile of one URL in the scope (its markets, its plan's categories), ordered by country and language. */
export async function loadUrlProfiles(db: Db, scope: Scope, urlId: string, o: ItemOptions): Promise<ItemRow[]> {
  const markets = sql.param(marketsParam(scope));
  return sqlRows<ItemRow>(
    db,
    sql`${selectItems(o)}
     FROM ${urlProfiles} ${p} JOIN ${articles} ${a} ON ${a.id} = ${p.urlId}
     LEFT JOIN ${publishers} ${pub} ON ${pub.domain} = ${a.domain}
     WHERE ${p.urlId} = ${urlId}::uuid AND (${markets}::text[] IS NULL OR ${p.country} = ANY(${markets}::text[]))
       AND ${inPlan(categoriesParam(scope), a.id)}
     ORDER BY ${p.country}, ${p.language}`,
  );
}
