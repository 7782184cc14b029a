// The NDJSON ingest format: one JSON object per line, discriminated by `type`. Field names follow
// the spec and the database (snake_case). Unknown extra fields are ignored (forward compatible).
import { z } from 'zod';
import { SEMANTIC_TYPES, STRUCTURAL_TYPES, TREND_ROLES, TREND_STATES } from '../../db/values';
import { projectRecord, trackingListItemRecord, trackingListRecord } from './records-tenants';
import {
  categoryPath,
  count,
  country,
  int32,
  domain,
  hour,
  isoDate,
  language,
  nonEmpty,
  opt,
  score,
  strings,
  text,
  timestamp,
  uuid,
} from './fields';

export const countryRecord = z.object({
  type: z.literal('country'),
  alpha_2: country,
  alpha_3: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'expected an alpha-3 code')
    .transform((s) => s.toUpperCase()),
  name: nonEmpty,
  region: text,
  sub_region: text,
  languages: z.array(language),
  population: opt(count),
  internet_population: opt(count),
  mobile_chrome_population: opt(count),
});

export const languageRecord = z.object({ type: z.literal('language'), code: language, name: nonEmpty });

export const cityRecord = z.object({ type: z.literal('city'), country, name: nonEmpty });

/** A crawler vantage point; `city: null` is a country-wide profile. Key: country, city, language. */
export const discoverProfileRecord = z.object({
  type: z.literal('discover_profile'),
  country,
  city: opt(nonEmpty),
  language,
  is_active: z.boolean().default(true),
});

export const publisherRecord = z.object({
  type: z.literal('publisher'),
  domain,
  name: nonEmpty,
  favicon_url: opt(text),
  kg_id: opt(text),
  is_video: z.boolean().default(false),
  profile_title: opt(text),
  followers: opt(count),
});

const image = z.object({
  source_url: text,
  width: count,
  height: count,
  content_type: text,
  storage_urls: z.object({ original: text, w512: text, w256: text, w128: text, w64: text }),
});

/** An entity mention inside an article; the entity itself is keyed by trim(lower(name)). */
const mention = z.object({
  name: nonEmpty,
  type: nonEmpty,
  kg_id: opt(nonEmpty),
  mentions: int32.positive().default(1),
  unified_score: score,
  embedding_similarity: score,
  source: text,
});

export const articleRecord = z.object({
  type: z.literal('article'),
  id: uuid,
  url: z.url({ protocol: /^https?$/ }),
  domain,
  publisher: nonEmpty,
  favicon_url: text.default(''),
  title: text,
  title_en: opt(text),
  summary: text.default(''),
  summary_en: opt(text),
  body: text.default(''),
  content_language: language,
  date_published: opt(timestamp),
  date_modified: opt(timestamp),
  meta: z.object({ meta_title: text, meta_description: text, headline: text, section: text }),
  enrichment: z.object({
    actors: strings,
    topic: strings,
    format_group: text,
    format_type: text,
    entities: z.record(z.string(), strings),
  }),
  rss_feeds: z.array(z.unknown()).nullable(),
  images: z.array(image).default([]),
  markdown_content: z.string().nullable(),
  image_url: opt(text),
  first_seen_at: timestamp,
  refreshed_at: timestamp,
  categories: z.array(z.object({ name: categoryPath, confidence: z.number().min(0).max(1) })).default([]),
  entities: z.array(mention).default([]),
});

export const entityRecord = z.object({
  type: z.literal('entity'),
  /** Optional stable id; by default the id is derived from the normalized name. */
  id: opt(uuid),
  name: nonEmpty,
  kg_id: opt(nonEmpty),
  kg_name: opt(text),
  kg_description: opt(text),
  kg_image_url: opt(text),
  entity_types: strings.default([]),
  wikipedia_url: text.default(''),
});

/** Impressions and mean position of one URL in one market during one UTC hour. */
export const observationRecord = z.object({
  type: z.literal('observation'),
  url_id: uuid,
  country,
  language,
  hour,
  impressions: int32,
  position: z.number().finite().positive(),
});

export const hierarchyNodeRecord = z.object({
  type: z.literal('hierarchy_node'),
  id: uuid,
  level: z.union([z.literal(1), z.literal(2)]),
  label: nonEmpty,
  summary: text.default(''),
  label_en: text,
  label_ru: text,
  label_local: opt(text),
  label_local_lang: opt(language),
  parent_id: opt(uuid),
  state: opt(text),
});

const features = z.object({
  days_active: score,
  total_articles: score,
  slope_14d: score,
  cv_30d: score,
  current_share_7d: score,
  peak_day_ago: score,
  first_48h_share: score,
  acf_30: score,
  acf_90: score,
  acf_365: score.nullable(),
});

/** article_count, first_seen_at and last_article_at are derived from trend_article lines. */
export const trendRecord = z.object({
  type: z.literal('trend'),
  id: uuid,
  label: nonEmpty,
  summary: text.default(''),
  label_en: text,
  label_ru: text,
  label_local: opt(text),
  label_local_lang: opt(language),
  state: z.enum(TREND_STATES),
  structural_type: z.enum(STRUCTURAL_TYPES),
  semantic_type: opt(z.enum(SEMANTIC_TYPES)),
  semantic_type_confidence: z.number().min(0).max(1).default(0),
  topic_id: opt(uuid),
  primary_country: country,
  country_scope: z.array(country).default([]),
  key_entities: strings.default([]),
  key_topics: strings.default([]),
  peak_date: opt(isoDate),
  expected_next_peak: opt(isoDate),
  features: opt(features),
  created_at: opt(timestamp),
  updated_at: opt(timestamp),
});

export const trendArticleRecord = z.object({
  type: z.literal('trend_article'),
  trend_id: uuid,
  url_id: uuid,
  assignment_method: nonEmpty,
  assignment_score: score,
  trend_role: z.enum(TREND_ROLES),
  assigned_at: timestamp,
});

export const trendEdgeRecord = z
  .object({
    type: z.literal('trend_edge'),
    parent_id: uuid,
    child_id: uuid,
    relation_type: nonEmpty,
    strength: score,
    established_at: timestamp,
  })
  .refine((e) => e.parent_id !== e.child_id, { message: 'a trend cannot be its own parent', path: ['child_id'] });

export const RECORD_SCHEMAS = {
  country: countryRecord,
  language: languageRecord,
  city: cityRecord,
  discover_profile: discoverProfileRecord,
  publisher: publisherRecord,
  entity: entityRecord,
  hierarchy_node: hierarchyNodeRecord,
  article: articleRecord,
  observation: observationRecord,
  trend: trendRecord,
  trend_article: trendArticleRecord,
  trend_edge: trendEdgeRecord,
  project: projectRecord,
  tracking_list: trackingListRecord,
  tracking_list_item: trackingListItemRecord,
} as const;

export type RecordType = keyof typeof RECORD_SCHEMAS;
export type RecordOf<T extends RecordType> = z.output<(typeof RECORD_SCHEMAS)[T]>;
export type IngestRecord = { [T in RecordType]: RecordOf<T> }[RecordType];

/** Dependency order: a type may reference only types before it. Writers run in this order. */
export const RECORD_TYPES = Object.keys(RECORD_SCHEMAS) as RecordType[];

/** Every line, as one schema (for the JSON Schema document). */
export const ingestRecord = z.discriminatedUnion('type', [
  countryRecord,
  languageRecord,
  cityRecord,
  discoverProfileRecord,
  publisherRecord,
  entityRecord,
  hierarchyNodeRecord,
  articleRecord,
  observationRecord,
  trendRecord,
  trendArticleRecord,
  trendEdgeRecord,
  projectRecord,
  trackingListRecord,
  trackingListItemRecord,
]);
