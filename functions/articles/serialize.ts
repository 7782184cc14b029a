// Article rows as the v1 payloads shape them (id, cabinet_url, timestamps with +00:00).
import { cabinetUrl, iso, round } from '../../shared/format';
import type { ArticleDetailRow, ArticleRow } from './queries';

export function toArticle(row: ArticleRow, appUrl: string) {
  return {
    id: row.id,
    url: row.url,
    cabinet_url: cabinetUrl(appUrl, 'article', row.id),
    title: row.title,
    domain: row.domain,
    publisher: row.publisher,
    language: row.content_language,
    languages: row.languages,
    countries: row.countries,
    published_at: iso(row.date_published),
    first_seen_at: iso(row.first_seen),
    last_seen_at: iso(row.last_seen),
    impressions: Number(row.impressions),
    categories: row.categories,
    image_url: row.image_url,
  };
}

/** The detail row folded to one article: the sightings summarise its in-scope profiles. */
export function toArticleDetail(row: ArticleDetailRow, appUrl: string) {
  const profiles = row.profiles;
  const first = Math.min(...profiles.map((p) => Date.parse(p.first_seen)));
  const last = Math.max(...profiles.map((p) => Date.parse(p.last_seen)));
  const sorted = (values: string[]) => [...new Set(values)].sort();
  return {
    ...toArticle(
      {
        ...row,
        first_seen: new Date(first).toISOString(),
        last_seen: new Date(last).toISOString(),
        impressions: profiles.reduce((sum, p) => sum + Number(p.impressions), 0),
        countries: sorted(profiles.map((p) => p.country)),
        languages: sorted(profiles.map((p) => p.language)),
      },
      appUrl,
    ),
    summary: row.summary,
    modified_at: iso(row.date_modified),
    article_meta: row.meta,
    entities: row.entities,
    markets: profiles.map((p) => ({
      country: p.country,
      language: p.language,
      first_seen_at: iso(p.first_seen),
      last_seen_at: iso(p.last_seen),
      impressions: Number(p.impressions),
      avg_position: round(p.avg_position, 2),
    })),
  };
}
