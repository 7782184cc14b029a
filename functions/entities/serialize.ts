// Entity rows as the spec's payloads shape them.
import { cabinetUrl, iso } from '../../shared/format';
import type { EntityArticleRow, EntityRow } from './queries';

const scalars = (r: EntityRow) => ({
  name: r.name,
  normalized_name: r.normalized_name,
  unified_score: r.unified_score,
  embedding_similarity: r.embedding_similarity,
  source: r.source,
  entity_types: r.entity_types,
  wikipedia_url: r.wikipedia_url,
  url_id: r.url_id,
});

export const toEntity = (r: EntityRow) => ({
  ...scalars(r),
  kg: { id: r.kg_id, name: r.kg_name, description: r.kg_description, image_url: r.kg_image_url },
});

export const toEntityDetail = (r: EntityRow, articlesCount: number) => ({
  ...scalars(r),
  kg_id: r.kg_id,
  kg_name: r.kg_name,
  kg_description: r.kg_description,
  kg_image_url: r.kg_image_url,
  articles_count: articlesCount,
});

export const toEntityArticle = (r: EntityArticleRow, appUrl: string) => ({
  url_id: r.url_id,
  url: r.url,
  title: r.title,
  domain: r.domain,
  published_at: iso(r.published_at),
  unified_score: r.unified_score,
  embedding_similarity: r.embedding_similarity,
  source: r.source,
  summary: r.summary,
  cabinet_url: cabinetUrl(appUrl, 'article', r.url_id),
});

/** The lookup key of a path name: trimmed and lower-cased, as ingest's normalizedName. */
export const lookupName = (raw: string) => raw.trim().toLowerCase();
