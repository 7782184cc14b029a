// Trend resources (trend, trend article, genealogy edge, hierarchy node; docs/TRENDS.md) and the area's parameters.
import { z } from '@hono/zod-openapi';
import { SEMANTIC_TYPES, STRUCTURAL_TYPES, TREND_ROLES, TREND_STATES } from '../../shared/db/values';
import { limitParam, offsetParam } from '../../shared/schemas/common';
import { DEMO } from '../../shared/schemas/demo-ids';

const UUID_EXAMPLE = '3f6c2a1e-8b4d-4c2e-9a7f-1d2e3f4a5b6c';
const ts = (description: string, example = '2026-11-20T08:00:00+00:00') => z.string().openapi({ description, example });
const uuid = (description: string, example = UUID_EXAMPLE) => z.string().uuid().openapi({ description, example });

/** The region gate, stated once for every route description. */
export const REGION_GATE =
  'Region gate: a trend is visible to a key when its `primary_country` or one of its `country_scope` codes is among ' +
  "the key's markets (unrestricted keys see every trend). An invisible trend answers exactly like an unknown id (404) " +
  'and is left out of every list, edge and count.';

export const TrendSchema = z
  .object({
    id: uuid('Trend id.'),
    cabinet_url: z.string().openapi({
      description: 'The trend page in the web app: `{app_url}/trend/<id>`.',
      example: `https://app.example.com/trend/${UUID_EXAMPLE}`,
    }),
    label: z.string().openapi({ description: 'Display label.', example: 'Kwame Sato: election' }),
    summary: z
      .string()
      .openapi({ description: 'One-sentence summary.', example: 'Coverage of election involving Kwame Sato, centred on Ghana.' }),
    label_en: z.string().openapi({ description: 'English label.', example: 'Kwame Sato: election' }),
    label_ru: z.string().openapi({ description: 'Russian label.', example: 'Kwame Sato: выборы' }),
    label_local: z
      .string()
      .nullable()
      .openapi({ description: "Label in the primary market's language; null when that is English.", example: 'Kwame Sato: Wahl' }),
    label_local_lang: z.string().nullable().openapi({ description: 'Language of `label_local` (ISO 639-1).', example: 'de' }),
    state: z.enum(TREND_STATES).openapi({ description: 'Lifecycle state (docs/TRENDS.md states the rule).', example: 'hot' }),
    structural_type: z.enum(STRUCTURAL_TYPES).openapi({ description: 'Shape of the trend over time.', example: 'event_driven' }),
    semantic_type: z.enum([...SEMANTIC_TYPES, 'unclassified']).openapi({
      description: 'What the trend is about; `unclassified` while the classifier has not typed it (never null).',
      example: 'news',
    }),
    semantic_type_confidence: z
      .number()
      .openapi({ description: 'Classifier confidence of `semantic_type`, 0-1 (0 when unclassified).', example: 0.82 }),
    article_count: z.number().int().openapi({ description: 'Articles assigned to the trend (every market).', example: 214 }),
    first_seen_at: ts('First sighting of its earliest article; null without articles.').nullable(),
    last_article_at: ts('First sighting of its newest article; null without articles.', '2026-11-21T17:00:00+00:00').nullable(),
    peak_date: z.string().nullable().openapi({
      description: 'UTC day (`YYYY-MM-DD`) with the most new articles (latest on ties); null without articles.',
      example: '2026-11-20',
    }),
    expected_next_peak: z
      .string()
      .nullable()
      .openapi({ description: 'Forecast next peak day of a cyclic trend (`YYYY-MM-DD`).', example: '2027-06-14' }),
    key_entities: z.array(z.string()).openapi({ description: 'Main entities.', example: ['Kwame Sato'] }),
    key_topics: z.array(z.string()).openapi({ description: 'Main keywords.', example: ['election'] }),
    topic_id: uuid('Level-1 topic of the hierarchy.').nullable(),
    primary_country: z.string().openapi({ description: 'Main market, upper-case alpha-2.', example: 'GH' }),
    country_scope: z.array(z.string()).openapi({ description: 'Every market the trend spans, upper-case alpha-2.', example: ['GH', 'NG'] }),
  })
  .openapi('Trend');

export const FeaturesSchema = z
  .object({
    days_active: z.number().int().openapi({ description: 'UTC days with at least one new article.', example: 9 }),
    total_articles: z.number().int().openapi({ description: 'Articles assigned (= `article_count`).', example: 214 }),
    slope_14d: z
      .number()
      .openapi({ description: 'Least-squares slope of the last 14 daily counts (articles/day per day).', example: 1.2637 }),
    cv_30d: z
      .number()
      .openapi({ description: 'Standard deviation over mean of the last 30 daily counts (0 when all are 0).', example: 1.8123 }),
    current_share_7d: z.number().openapi({ description: 'Share of all articles first seen in the last 7 days.', example: 0.6402 }),
    peak_day_ago: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Days from `peak_date` to today; null without articles.', example: 1 }),
    first_48h_share: z.number().openapi({ description: 'Share of articles first seen within 48 hours of the first one.', example: 0.2196 }),
    acf_30: z.number().min(-1).max(1).openapi({
      description:
        'Sample autocorrelation at lag 30 of `daily_counts_180d` (the 180-day zero-filled daily series); 0 when the series is constant.',
      example: 0.1234,
    }),
    acf_90: z.number().min(-1).max(1).openapi({
      description: 'Sample autocorrelation at lag 90 of `daily_counts_180d`; 0 when the series is constant.',
      example: -0.0412,
    }),
    acf_365: z.number().nullable().openapi({
      description:
        'Autocorrelation at lag 365 over the whole history (first day to today); null under 730 days of history, which a yearly lag needs to carry meaning.',
      example: null,
    }),
  })
  .openapi('TrendFeatures');

export const TrendDetailSchema = TrendSchema.extend({
  daily_counts_180d: z.array(z.number().int()).openapi({
    description: 'New articles per UTC day, the 180 days ending today (oldest first), zero-filled.',
    example: [0, 0, 3, 12, 9],
  }),
  features: FeaturesSchema,
  created_at: ts('When the trend was created.'),
  updated_at: ts("When the trend's description last changed."),
}).openapi('TrendDetail');

export const TrendArticleSchema = z
  .object({
    id: uuid('Article (URL) id; `url_id` in v2 payloads.'),
    url: z.string().openapi({ description: 'Canonical URL.', example: 'https://capitalchronicle.com/news/2026/11/20/parliament-6rjw8s' }),
    cabinet_url: z.string().openapi({
      description: 'The article page in the web app: `{app_url}/article/<id>`.',
      example: `https://app.example.com/article/${UUID_EXAMPLE}`,
    }),
    title: z.string().openapi({ description: 'Title as published.', example: 'Parliament votes tonight' }),
    title_en: z
      .string()
      .nullable()
      .openapi({ description: 'English title; null when not translated.', example: 'Parliament votes tonight' }),
    domain: z.string().openapi({ description: 'Clean domain.', example: 'capitalchronicle.com' }),
    publisher: z.string().openapi({ description: 'Publisher display name.', example: 'Capital Chronicle' }),
    language: z.string().openapi({ description: 'Content language (ISO 639-1).', example: 'en' }),
    published_at: ts('Publication date given by the publisher; null when unknown.').nullable(),
    first_seen_at: ts('First sighting of the URL in any market.'),
    summary_en: z
      .string()
      .nullable()
      .openapi({ description: 'English summary; null when none.', example: 'Lawmakers vote on the budget.' }),
    image_url: z
      .string()
      .nullable()
      .openapi({ description: 'Lead image; null when none.', example: 'https://capitalchronicle.com/img/8esj.jpg' }),
    country_code: z.string().nullable().openapi({
      description: "Market of its first sighting among the key's markets (upper-case); null if it never surfaced.",
      example: 'GH',
    }),
    assignment_method: z.string().openapi({ description: 'How it was assigned to the trend.', example: 'embedding' }),
    assignment_score: z.number().openapi({ description: 'Assignment confidence, 0-1.', example: 0.87 }),
    trend_role: z.enum(TREND_ROLES).openapi({ description: 'Role in the trend.', example: 'F2_pile_on' }),
  })
  .openapi('TrendArticle');

const edgeFields = (side: 'parent' | 'child') =>
  z.object({
    [`${side}_id`]: uuid(`The ${side} trend.`),
    [`${side}_label`]: z.string().openapi({ description: `Label of the ${side}.`, example: 'Budget crisis' }),
    [`${side}_state`]: z.enum(TREND_STATES).openapi({ description: `Lifecycle state of the ${side}.`, example: 'decayed' }),
    [`${side}_structural_type`]: z
      .enum(STRUCTURAL_TYPES)
      .openapi({ description: `Structural type of the ${side}.`, example: 'event_driven' }),
    relation_type: z.string().openapi({ description: 'Kind of relation.', example: 'spinoff' }),
    strength: z.number().openapi({ description: 'Edge strength, 0-1.', example: 0.74 }),
    established_at: ts('When the edge was established.'),
  });

export const ParentEdgeSchema = edgeFields('parent').openapi('TrendParentEdge');
export const ChildEdgeSchema = edgeFields('child').openapi('TrendChildEdge');

export const HierarchyNodeSchema = z
  .object({
    id: uuid('Node id.'),
    level: z.number().int().openapi({ description: '2 = theme, 1 = topic.', example: 2 }),
    label: z.string().openapi({ description: 'Display label.', example: 'Politics' }),
    summary: z.string().openapi({ description: 'Short summary.', example: 'Elections, parliaments and government.' }),
    label_en: z.string().openapi({ example: 'Politics' }),
    label_ru: z.string().openapi({ example: 'Политика' }),
    label_local: z.string().nullable().openapi({ example: null }),
    label_local_lang: z.string().nullable().openapi({ example: null }),
    n_trends: z.number().int().openapi({ description: 'Trends under the node visible to the key.', example: 42 }),
    n_articles: z
      .number()
      .int()
      .openapi({ description: "Distinct articles of those trends the key may see (its markets, its plan's categories).", example: 5120 }),
    parent_id: z.string().uuid().nullable().openapi({ description: "A topic's theme; null for themes.", example: null }),
    state: z.string().nullable().openapi({ description: 'Dominant lifecycle state of the node, when known.', example: 'hot' }),
  })
  .openapi('HierarchyNode');

/** A path UUID, echoed lower-case (upper-case hex names the same id). */
const pathId = (name: string, description: string, example: string) =>
  uuid(description)
    .transform((s) => s.toLowerCase())
    .openapi({ param: { name, in: 'path' }, description, example });
export const trendIdParam = z.object({ trend_id: pathId('trend_id', 'Trend id.', DEMO.trendId) });
export const themeIdParam = z.object({ theme_id: pathId('theme_id', 'Theme (level-2 node) id.', DEMO.themeId) });
export const topicIdParam = z.object({ topic_id: pathId('topic_id', 'Topic (level-1 node) id.', DEMO.topicId) });

const sortOrder = z
  .enum(['asc', 'desc'])
  .default('desc')
  .openapi({ description: 'Sort direction; nulls sort last either way.', example: 'desc' });
const trendSort = z
  .enum(['last_article_at', 'first_seen_at', 'article_count'])
  .default('last_article_at')
  .openapi({ description: 'Sort key; ties break on `id`.', example: 'last_article_at' });

export const TopicTrendsQuery = z.object({ sort_by: trendSort, sort_order: sortOrder, limit: limitParam(200, 50), offset: offsetParam });

export const TrendsQuery = TopicTrendsQuery.extend({
  state: z.enum(TREND_STATES).optional().openapi({ description: 'Lifecycle state.', example: 'hot' }),
  structural_type: z.enum(STRUCTURAL_TYPES).optional().openapi({ description: 'Structural type.', example: 'event_driven' }),
  semantic_type: z
    .enum([...SEMANTIC_TYPES, 'unclassified'])
    .optional()
    .openapi({ description: 'Semantic type; `unclassified` = trends with no semantic type yet.', example: 'news' }),
  topic_id: uuid('A single level-1 topic.').optional(),
  theme_id: uuid('Every topic under a level-2 theme; a theme without topics gives an empty list.').optional(),
  min_articles: z.coerce
    .number()
    .int()
    .min(0)
    .max(100_000)
    .default(1)
    .openapi({ description: 'Minimum `article_count`, 0-100000; 0 disables.', example: 1, type: 'integer' }),
});

export const TrendArticlesQuery = z.object({
  sort_by: z
    .enum(['first_seen_at', 'published_at', 'assignment_score'])
    .default('first_seen_at')
    .openapi({ description: 'Sort key; ties break on `id`.', example: 'first_seen_at' }),
  sort_order: sortOrder,
  role: z.enum(TREND_ROLES).optional().openapi({ description: 'Only articles with this trend role.', example: 'F1_trigger' }),
  limit: limitParam(200, 50),
  offset: offsetParam,
});

const page = {
  total: z.number().int().openapi({ description: 'Exact filtered count.', example: 1 }),
  limit: z.number().int().openapi({ example: 50 }),
  offset: z.number().int().openapi({ example: 0 }),
};

export const TrendListSchema = z.object({ trends: z.array(TrendSchema), ...page }).openapi('TrendList');
export const TopicTrendsSchema = z.object({ topic_id: z.string().uuid(), trends: z.array(TrendSchema), ...page }).openapi('TopicTrends');
export const TrendArticlesSchema = z
  .object({ trend_id: z.string().uuid(), articles: z.array(TrendArticleSchema), ...page })
  .openapi('TrendArticles');
export const ParentsSchema = z.object({ trend_id: z.string().uuid(), parents: z.array(ParentEdgeSchema) }).openapi('TrendParents');
export const ChildrenSchema = z.object({ trend_id: z.string().uuid(), children: z.array(ChildEdgeSchema) }).openapi('TrendChildren');
export const ThemesSchema = z.object({ themes: z.array(HierarchyNodeSchema) }).openapi('Themes');
export const ThemeTopicsSchema = z.object({ theme_id: z.string().uuid(), topics: z.array(HierarchyNodeSchema) }).openapi('ThemeTopics');
