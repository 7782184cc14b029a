// Entity resources and the entities area's parameters (docs/ENTITIES.md).
import { z } from '@hono/zod-openapi';
import { limitParam, offsetParam } from '../../shared/schemas/common';
import { DEMO } from '../../shared/schemas/demo-ids';

const score = (description: string, example: number) => z.number().openapi({ description, example });

const scalars = {
  name: z.string().openapi({ description: 'The entity name.', example: 'Taylor Swift' }),
  normalized_name: z.string().openapi({ description: 'Trimmed, lower-cased name: the dedup and lookup key.', example: 'taylor swift' }),
  unified_score: score("Score of the entity's highest-scoring visible occurrence.", 0.92),
  embedding_similarity: score('Embedding similarity of that occurrence.', 0.81),
  source: z.string().openapi({ description: 'Extractor of that occurrence.', example: 'ner' }),
  entity_types: z.array(z.string()).openapi({ description: 'Type labels.', example: ['Person', 'MusicArtist'] }),
  wikipedia_url: z.string().openapi({ example: 'https://en.wikipedia.org/wiki/Taylor_Swift' }),
  url_id: z.string().uuid().openapi({ description: 'Article of that occurrence.', example: '0b8f6a57-3f1e-4a53-9d7e-1f2a3b4c5d01' }),
};

const nullableText = (example: string, description: string) => z.string().nullable().openapi({ description, example });
/** Why a knowledge-graph field can be null: the data has no value for it. */
const KG_NULL =
  'Null when the entity has no knowledge-graph match (extracted entities are matched to the knowledge graph only when the extractor found one), or the matched record lacks this field.';

export const KgSchema = z
  .object({
    id: nullableText('/m/0dl567', KG_NULL),
    name: nullableText('Taylor Swift', KG_NULL),
    description: nullableText('American singer-songwriter', KG_NULL),
    image_url: nullableText('https://img.example.com/taylor.jpg', KG_NULL),
  })
  .openapi('EntityKnowledgeGraph');

export const EntitySchema = z.object({ ...scalars, kg: KgSchema }).openapi('Entity');

export const EntityDetailSchema = z
  .object({
    ...scalars,
    kg_id: nullableText('/m/0dl567', KG_NULL),
    kg_name: nullableText('Taylor Swift', KG_NULL),
    kg_description: nullableText('American singer-songwriter', KG_NULL),
    kg_image_url: nullableText('https://img.example.com/taylor.jpg', KG_NULL),
    articles_count: z
      .number()
      .int()
      .openapi({ description: 'Exact number of articles mentioning the entity that the key may see.', example: 42 }),
  })
  .openapi('EntityDetail');

export const EntityListSchema = z
  .object({
    entities: z.array(EntitySchema),
    total: z.number().int().openapi({ description: 'Exact number of matching entities.', example: 560 }),
    limit: z.number().int().openapi({ example: 50 }),
    offset: z.number().int().openapi({ example: 0 }),
  })
  .openapi('EntityList');

export const TrendingEntitySchema = z
  .object({
    name: scalars.name,
    kg_id: nullableText('/m/0dl567', KG_NULL),
    kg_name: nullableText('Taylor Swift', KG_NULL),
    entity_types: scalars.entity_types,
    mentions_in_period: z.number().int().openapi({
      description:
        'Profiles (article x country x language) of articles mentioning the entity first seen in the region (and `lang`) in the period.',
      example: 17,
    }),
    articles_in_period: z.number().int().openapi({
      description:
        'Distinct articles mentioning the entity whose first appearance in the region (in `lang`, when given) falls in the period.',
      example: 12,
    }),
    top_article: z
      .object({
        url_id: scalars.url_id,
        title: z.string().openapi({ example: 'Taylor Swift announces tour' }),
        domain: z.string().openapi({ example: 'news.example.com' }),
        cabinet_url: z.string().openapi({
          description: 'The article page in the web app: `{app_url}/article/<url_id>`.',
          example: 'https://app.example.com/article/0b8f6a57-3f1e-4a53-9d7e-1f2a3b4c5d01',
        }),
      })
      .openapi({ description: 'Of the mentions in the period, the article where the entity scores highest.' }),
  })
  .openapi('TrendingEntity');

export const TrendingListSchema = z
  .object({
    region: z.string().openapi({ example: 'US' }),
    period: z.enum(['1h', '6h', '24h', '7d']).openapi({ example: '24h' }),
    trending_entities: z.array(TrendingEntitySchema),
  })
  .openapi('TrendingEntities');

export const EntityArticleSchema = z
  .object({
    url_id: scalars.url_id,
    url: z.string().openapi({ example: 'https://news.example.com/news/5d01' }),
    title: z.string().openapi({ example: 'Taylor Swift announces tour' }),
    domain: z.string().openapi({ example: 'news.example.com' }),
    published_at: z.string().nullable().openapi({ example: '2026-11-19T06:00:00+00:00' }),
    unified_score: score("The entity's score in this article.", 0.92),
    embedding_similarity: score("The entity's embedding similarity in this article.", 0.81),
    source: scalars.source,
    summary: z.string().openapi({ example: 'The singer announced a world tour.' }),
    cabinet_url: z.string().openapi({
      description: 'The article in the web application.',
      example: 'https://app.example.com/article/0b8f6a57-3f1e-4a53-9d7e-1f2a3b4c5d01',
    }),
  })
  .openapi('EntityArticle');

export const EntityArticlesSchema = z
  .object({
    entity_name: z.string().openapi({ description: 'The requested name, trimmed and lower-cased.', example: 'taylor swift' }),
    articles: z.array(EntityArticleSchema),
    total: z.number().int().openapi({ description: 'Exact number of articles the key may see.', example: 42 }),
  })
  .openapi('EntityArticles');

export const entityNameParam = z.object({
  entity_name: z
    .string()
    .max(500)
    .openapi({
      param: { name: 'entity_name', in: 'path' },
      description: 'Entity name (percent-encoded in the path, as any path segment); trimmed and lower-cased before matching.',
      example: DEMO.entityName,
    }),
});

const entityType = z.string().min(1).max(200).optional().openapi({ description: 'Exact member of `entity_types`.', example: 'Person' });

export const ListQuery = z.object({
  search: z
    .string()
    .max(200)
    .optional()
    .openapi({ description: 'Case- and accent-insensitive substring of the name (`chloe` finds `Chloé`).', example: 'swift' }),
  entity_type: entityType,
  min_score: z.coerce.number().min(0).default(0).openapi({ description: 'Minimum `unified_score`, >= 0.0.', example: 0.5, type: 'number' }),
  limit: limitParam(200, 50),
  offset: offsetParam,
});

export const TrendingQuery = z.object({
  region: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'Expected an ISO 3166-1 alpha-2 code')
    .transform((v) => v.toUpperCase())
    .openapi({ description: 'Country code (required), case-insensitive.', example: 'US' }),
  period: z.enum(['1h', '6h', '24h', '7d']).default('24h').openapi({ description: 'Window ending now (UTC).', example: '24h' }),
  entity_type: entityType,
  lang: z
    .string()
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$/, 'Expected a language code')
    .transform((v) => v.toLowerCase())
    .optional()
    .openapi({ description: 'Profile language code.', example: 'en' }),
  limit: limitParam(100, 20),
});

export const ArticlesQuery = z.object({ limit: limitParam(200, 50), offset: offsetParam });
