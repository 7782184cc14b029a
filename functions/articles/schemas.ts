// Article resources of the v1 articles area (the article id is `id` here, `url_id` in v2 payloads).
import { z } from '@hono/zod-openapi';
import { LIST_CAP_NOTE } from '../../shared/scope/list-caps';
import { limitParam, offsetParam } from '../../shared/schemas/common';
import { isoQueryParam } from '../../shared/time/dates';
import { WindowQuery } from '../../shared/scope/window-scope';
import { DEMO } from '../../shared/schemas/demo-ids';

const ts = (description: string, example = '2026-11-20T08:00:00+00:00') => z.string().openapi({ description, example });
const isoQuery = isoQueryParam;

export const CategorySchema = z
  .object({
    name: z.string().openapi({ description: 'Taxonomy path, case-sensitive.', example: '/Sports/Soccer' }),
    confidence: z.number().openapi({ description: 'Classifier confidence, 0-1.', example: 0.87 }),
  })
  .openapi('ArticleCategory');

export const ArticleSchema = z
  .object({
    id: z.string().uuid().openapi({
      description: 'Article (URL) id; the same value is `url_id` in v2 payloads.',
      example: '656a08a9-b3f3-43a4-92b3-1902b8cdce18',
    }),
    url: z.string().openapi({ description: 'Canonical URL.', example: 'https://capitalchronicle.com/news/2026/11/20/parliament-6rjw8s' }),
    cabinet_url: z.string().openapi({
      description: 'The article page in the web app: `{app_url}/article/<id>`.',
      example: 'https://app.example.com/article/656a08a9-b3f3-43a4-92b3-1902b8cdce18',
    }),
    title: z.string().openapi({ description: 'Title as published.', example: 'Analysis: Kwame Sato, parliament and what comes next' }),
    domain: z.string().openapi({ description: 'Clean domain, lower-case, without `www.`.', example: 'capitalchronicle.com' }),
    publisher: z.string().openapi({ description: 'Publisher display name.', example: 'Capital Chronicle' }),
    language: z.string().openapi({ description: 'Content language of the article (ISO 639-1, lower-case).', example: 'en' }),
    languages: z.array(z.string()).openapi({
      description: 'Feed languages of the profiles it surfaced in, within the requested markets (lower-case).',
      example: ['en'],
    }),
    countries: z
      .array(z.string())
      .openapi({ description: 'Markets it surfaced in, within the requested markets (upper-case alpha-2).', example: ['GB', 'US'] }),
    published_at: z
      .string()
      .nullable()
      .openapi({ description: 'Publication date given by the publisher; null when unknown.', example: '2026-11-20T11:42:00+00:00' }),
    first_seen_at: ts('Start of the first hour it surfaced in the requested markets (languages).', '2026-11-20T13:00:00+00:00'),
    last_seen_at: ts('End of the last hour it surfaced in the requested markets (languages).', '2026-11-21T05:00:00+00:00'),
    impressions: z
      .number()
      .int()
      .openapi({ description: 'All impressions observed in the requested markets (languages) since it was first seen.', example: 18_240 }),
    categories: z.array(CategorySchema).openapi({ description: 'Every category of the article, most confident first.' }),
    image_url: z
      .string()
      .nullable()
      .openapi({ description: 'Lead image; null when none.', example: 'https://capitalchronicle.com/img/8esj.jpg' }),
  })
  .openapi('Article');

export const ArticleMetaSchema = z
  .object({
    meta_title: z.string().openapi({ description: 'HTML `<title>`.', example: 'Analysis | Capital Chronicle' }),
    meta_description: z
      .string()
      .openapi({ description: 'Meta description.', example: 'Analysts linked the parliament developments to election.' }),
    headline: z
      .string()
      .openapi({ description: 'Structured-data headline.', example: 'Analysis: Kwame Sato, parliament and what comes next' }),
    section: z.string().openapi({ description: 'Site section.', example: 'Elections' }),
  })
  .openapi('ArticleMeta');

export const ArticleEntitySchema = z
  .object({
    id: z.string().uuid().openapi({ description: 'Entity id.', example: '4c1f0e8a-6b2d-8a3e-9f10-2b3c4d5e6f70' }),
    kg_id: z.string().nullable().openapi({ description: 'Knowledge-graph id; null when unresolved.', example: '/m/0k2x9a' }),
    name: z.string().openapi({ description: 'Entity name.', example: 'Kwame Sato' }),
    type: z.string().openapi({ description: 'Type of the mention in this article.', example: 'person' }),
    mentions: z.number().int().openapi({ description: 'Mentions in this article.', example: 2 }),
    unified_score: z.number().openapi({ description: 'Relevance of the entity to this article, 0-1.', example: 0.786 }),
  })
  .openapi('ArticleEntity');

export const ArticleMarketSchema = z
  .object({
    country: z.string().openapi({ description: 'Market, upper-case alpha-2.', example: 'US' }),
    language: z.string().openapi({ description: 'Feed language of the profile, lower-case.', example: 'en' }),
    first_seen_at: ts('Start of the first hour seen in this market.', '2026-11-20T13:00:00+00:00'),
    last_seen_at: ts('End of the last hour seen in this market.', '2026-11-21T05:00:00+00:00'),
    impressions: z.number().int().openapi({ description: 'All impressions in this market.', example: 9_120 }),
    avg_position: z.number().openapi({ description: 'Impression-weighted mean feed position.', example: 3.4 }),
  })
  .openapi('ArticleMarket');

export const ArticleDetailSchema = ArticleSchema.extend({
  summary: z.string().openapi({ description: 'Summary.', example: 'Analysts linked the parliament developments to election.' }),
  modified_at: z
    .string()
    .nullable()
    .openapi({ description: 'Last modification given by the publisher; null when unknown.', example: '2026-11-20T15:00:00+00:00' }),
  article_meta: ArticleMetaSchema.nullable().openapi({ description: 'Page metadata; null when not crawled.' }),
  entities: z.array(ArticleEntitySchema).openapi({ description: 'Entities mentioned, most relevant first.' }),
  markets: z
    .array(ArticleMarketSchema)
    .openapi({ description: "One profile per market and language it surfaced in, within the key's markets." }),
}).openapi('ArticleDetail');

export const ArticlesQuery = z.object({
  country: WindowQuery.country.openapi({
    description: "ISO 3166-1 alpha-2 or `all` (every market of the key). A country outside the key's markets is 403.",
    example: 'all',
  }),
  lang: WindowQuery.lang.openapi({ description: 'ISO 639-1 feed language or `all`.', example: 'all' }),
  category: z
    .string()
    .min(1)
    .optional()
    .openapi({
      description:
        'Taxonomy paths separated by `;`; an article matches a path when it has that category or one below it. ' +
        'Closed to category-limited plans (403 `endpoint_not_in_plan_scope`).' +
        LIST_CAP_NOTE,
      example: '/Sports;/News/Politics',
    }),
  entity: z
    .string()
    .min(1)
    .optional()
    .openapi({
      description: `Knowledge-graph ids (\`/m/...\`) or entity names, separated by \`;\`.${LIST_CAP_NOTE}`,
      example: '/m/0k2x9a',
    }),
  match: z
    .enum(['any', 'all'])
    .default('any')
    .openapi({ description: 'How several categories (and several entities) combine: `any` (default) or `all`.', example: 'any' }),
  q: z.string().min(2).max(200).optional().openapi({
    description:
      'Title search: every word of `q` begins a word of the title, ignoring case and accents (`elect` finds "Election night"). Served by the title\'s full-text index.',
    example: 'parliament',
  }),
  date_from: isoQuery(
    "Earliest first sighting (in the requested markets); moved forward to the plan's history when earlier (`history_clamped`). Default: the plan's history.",
    '2026-11-01T00:00:00Z',
  ),
  date_to: isoQuery('First sighting before this instant (exclusive). Default: now.', '2026-11-08T00:00:00Z'),
  sort_by: z.enum(['first_seen', 'last_seen', 'published_at', 'impressions']).default('first_seen').openapi({
    description: '`first_seen` (default), `last_seen`, `published_at` (unknown dates last) or `impressions`.',
    example: 'first_seen',
  }),
  sort_order: z.enum(['asc', 'desc']).default('desc').openapi({ description: '`asc` or `desc` (default).', example: 'desc' }),
  limit: limitParam(200, 50),
  offset: offsetParam,
});

export const ArticleListSchema = z
  .object({
    articles: z.array(ArticleSchema),
    total: z.number().int().openapi({ description: 'Articles matching the filters.', example: 1_204 }),
    limit: z.number().int().openapi({ example: 50 }),
    offset: z.number().int().openapi({ example: 0 }),
    history_clamped: z
      .boolean()
      .openapi({ description: "`date_from` was earlier than the plan's history and was moved forward.", example: false }),
  })
  .openapi('ArticleList');

export const articleIdParam = z.object({
  id: z
    .string()
    .uuid()
    .openapi({ param: { name: 'id', in: 'path' }, description: 'Article id (`url_id` in v2).', example: DEMO.urlId }),
});
