// The feed item, a per-URL profile: one URL in one market, country and language (docs/FEED.md "Items").
import { z } from '@hono/zod-openapi';

const ts = (description: string) => z.string().openapi({ description, example: '2026-03-01T09:00:00+00:00', format: 'date-time' });

export const WindowCountSchema = z
  .object({
    current: z.number().int().openapi({ description: 'Impressions in the window ending at the current hour (inclusive).', example: 1200 }),
    previous: z.number().int().nullable().openapi({
      description:
        "Impressions in the window of the same length right before; null when that window lies wholly before the profile's first hour.",
      example: 800,
    }),
    delta_pct: z
      .number()
      .nullable()
      .openapi({ description: '(current - previous) / previous x 100, one decimal; null when previous is 0 or null.', example: 50 }),
  })
  .openapi('WindowCount');

export const FeedImpressionsSchema = z
  .object({
    last_1h: WindowCountSchema,
    last_24h: WindowCountSchema,
    last_7d: WindowCountSchema,
    last_30d: WindowCountSchema,
    breakdown: z.object({
      hourly_24h: z.array(z.number().int()).openapi({
        description: '24 hourly buckets, oldest first, ending at the current UTC hour; sums to last_24h.current.',
        example: [0, 3, 10],
      }),
      daily_30d: z
        .array(z.number().int())
        .openapi({ description: '30 UTC days, oldest first, ending today (up to the current hour).', example: [0, 120, 340] }),
    }),
  })
  .openapi('FeedImpressions');

const ImageSchema = z.object({
  source_url: z.string().openapi({ example: 'https://news.example.com/img/hero.jpg' }),
  width: z.number().int().openapi({ example: 1200 }),
  height: z.number().int().openapi({ example: 675 }),
  content_type: z.string().openapi({ example: 'image/jpeg' }),
  storage_urls: z
    .object({ original: z.string(), w512: z.string(), w256: z.string(), w128: z.string(), w64: z.string() })
    .openapi({ description: 'Copies in our storage: the original and widths 512/256/128/64 px.' }),
});

const TrendRefSchema = z
  .object({
    trend_id: z.string().uuid().openapi({ example: '5b1e0c2a-7d4f-4a8b-9c3d-2e1f0a9b8c7d' }),
    name: z.string().openapi({ example: 'Champions League final' }),
    semantic_type: z.string().openapi({
      description:
        '`news`, `event_based`, `seasonal`, `lifestyle`, `evergreen`, or `unclassified` while the trend is not typed yet (never null).',
      example: 'news',
    }),
    key_entities: z.array(z.string()).openapi({ example: ['Lionel Messi'] }),
    key_topics: z.array(z.string()).openapi({ example: ['soccer'] }),
  })
  .openapi('FeedTrend');

export const FeedItemSchema = z
  .object({
    url_id: z
      .string()
      .uuid()
      .openapi({ description: 'The URL id (`id` in v1 article payloads).', example: '7a1f3c9e-2b4d-4e8f-9a0b-1c2d3e4f5a6b' }),
    url: z.string().openapi({ example: 'https://news.example.com/story/1' }),
    domain: z.string().openapi({ example: 'news.example.com' }),
    favicon: z.string().openapi({ description: 'Favicon URL; empty when unknown.', example: 'https://news.example.com/favicon.ico' }),
    country: z.string().openapi({ description: 'Lower-case country of this market profile.', example: 'us' }),
    language: z.string().openapi({ description: 'Lower-case language of this market profile.', example: 'en' }),
    title: z.string().openapi({ example: 'Soccer final thriller' }),
    summary: z.string().openapi({ example: 'A late goal decided the final.' }),
    publisher: z.string().openapi({ example: 'News Example' }),
    first_seen: ts('Start of the first hour with impressions in this market.'),
    last_seen: ts(
      'Time of the latest observation with impressions in this market: the end of its hour, or now while that hour is still running (never after now).',
    ),
    lifespan: z.string().openapi({ description: '`last_seen - first_seen` as `HH:MM:SS`; hours may exceed 99.', example: '11:00:00' }),
    avg_position: z.number().openapi({ description: 'Impression-weighted mean position in this market.', example: 2.4 }),
    impressions: FeedImpressionsSchema,
    content_language: z.string().openapi({ description: 'Language of the article text.', example: 'en' }),
    content_language_fit: z
      .boolean()
      .openapi({ description: 'Whether content_language fits the profile language (`pt-br` fits `pt`).', example: true }),
    date_published: ts('Publication date from the page; null when unknown.').nullable(),
    date_modified: ts('Last modification the page states; null when the page states none (many pages never do).').nullable(),
    article_meta: z
      .object({ meta_title: z.string(), meta_description: z.string(), headline: z.string(), section: z.string() })
      .openapi({ description: 'Page metadata; empty strings when the page had none.' }),
    enrichment: z.object({
      actors: z.array(z.string()),
      topic: z.array(z.string()),
      format_group: z.string(),
      format_type: z.string(),
      entities: z.record(z.string(), z.array(z.string())).openapi({ description: 'Entity names keyed by kind, e.g. people, orgs.' }),
    }),
    categories: z
      .array(z.object({ name: z.string().openapi({ example: '/Sports/Soccer' }), confidence: z.number().openapi({ example: 0.9 }) }))
      .openapi({ description: 'Taxonomy paths, most confident first.' }),
    rss_feeds: z.array(z.unknown()).nullable().openapi({ description: 'Feeds the page links, as the crawler found them; null when none.' }),
    trend: TrendRefSchema.nullable().openapi({ description: 'The trend the URL is assigned to with the highest score; null without one.' }),
    entities: z
      .array(
        z.object({
          kg_id: z
            .string()
            .nullable()
            .openapi({ description: 'Knowledge-graph id (`/m/...`); null before resolution.', example: '/m/06qjgc' }),
          name: z.string().openapi({ example: 'Lionel Messi' }),
          type: z.string().openapi({ example: 'person' }),
        }),
      )
      .openapi({ description: 'Entities of the article, highest score first.' }),
    images: z.array(ImageSchema),
    markdown_content: z
      .string()
      .nullable()
      .openapi({ description: 'The article as Markdown, only when `include_markdown` is true; null otherwise.' }),
    refreshed_at: ts('When the crawler last refreshed the page.'),
    cabinet_url: z.string().openapi({
      description: 'The article page in the web app: `{app_url}/article/<url_id>`.',
      example: 'https://app.example.com/article/656a08a9-b3f3-43a4-92b3-1902b8cdce18',
    }),
  })
  .openapi('FeedItem');

export type FeedItem = z.infer<typeof FeedItemSchema>;
