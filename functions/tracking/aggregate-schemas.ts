// Response schemas of /metrics and /rollup (docs/TRACKING.md "Metrics rows", "Roll-up blocks").
import { z } from '@hono/zod-openapi';

const ts = z.string().openapi({ example: '2026-11-20T00:00:00+00:00' });
const n = (description: string, example = 0) => z.number().openapi({ description, example });

export const ScopeSchema = z
  .object({
    country: z.string().openapi({ description: 'As requested: `all` or a country code.', example: 'all' }),
    markets: z.array(z.string()).openapi({ description: 'Resolved markets, lower-case.', example: ['gb', 'us'] }),
    lang: z.string().openapi({ example: 'all' }),
    from: ts,
    to: ts,
    grain: z.enum(['hour', 'day']).optional().openapi({ description: 'Metrics only.' }),
    prev_from: ts,
    prev_to: ts,
    history_days: z.number().int().openapi({ description: 'History depth of the plan.', example: 365 }),
    clamped: z.boolean().openapi({
      description:
        'The requested start was moved forward to the plan history (a window wholly before it becomes the empty window at its start: `from` = `to`).',
    }),
  })
  .openapi('TrackingScope');

const Forecast = z
  .object({
    pct_next24h: n(
      'Predicted change of the next day against the last full day, %. Damped exponential trend (docs/TRACKING.md "Forecast"): finite, the predicted day at most 16x the 14-day peak.',
      12.5,
    ),
    pct_next7d: n('Predicted next 7 days against the last 7, %.', -4.2),
    pct_next30d: n('Predicted next 30 days against the last 14 scaled to 30, %.', -20),
    predicted_total_reach: z.number().int().min(0).openapi({
      description:
        'Impressions of the last 14 days plus the predicted next 30 (bounded: each predicted day is at most 16x the 14-day peak).',
      example: 1_250_000,
    }),
    predicted_end_at: ts.openapi({
      description:
        'When daily impressions are predicted to fall below 1% of the peak (decaying trends, at most a year out), else the end of the 30-day horizon.',
    }),
    confidence: z.number().min(0).max(1).openapi({
      description:
        'Fit quality times history: exp(-RMS of the log residuals) x (active days / 14). 1 = an exact fit over 14 active days; 0 = no activity.',
      example: 0.82,
    }),
  })
  .openapi('TrendForecast');

export const MetricsRowSchema = z
  .object({
    key: z.string().openapi({ description: 'The item key; mention terms: `<keyword>|<match_type>`.', example: '/Sports/Soccer' }),
    name: z.string(),
    resolved_id: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: 'What the key resolved to (entity id, category, domain, trend id); null when unknown.' }),
    impressions: z.number().int(),
    publications_count: z.number().int().openapi({ description: 'Distinct publications active in the window.' }),
    avg_position: z.number().nullable().optional().openapi({ description: 'Impression-weighted mean feed position.' }),
    delta_pct: z
      .number()
      .nullable()
      .optional()
      .openapi({ description: 'Impressions against the previous window, %; null without previous impressions.' }),
    impressions_spark: z.array(z.number().int()).openapi({ description: 'One entry per grain bucket of the window.' }),
    publications_spark: z.array(z.number().int()).optional(),
    last_seen: ts.nullable().openapi({
      description:
        'Time of the latest observation with impressions in the window (the end of its hour, at most the window end, never after now); null without activity.',
    }),
    resolved_type: z.string().nullable().optional().openapi({ description: 'Entity rows.' }),
    publishers_count: z.number().int().optional(),
    trends_count: z.number().int().optional(),
    rank_delta: z
      .number()
      .int()
      .nullable()
      .optional()
      .openapi({ description: 'Rank by impressions among the page in the previous window minus now (positive = up).' }),
    lived_hours: z
      .number()
      .nullable()
      .optional()
      .openapi({ description: 'Entity/category: hours from the first sighting of its active publications to the last.' }),
    avg_lifespan_hours: z
      .number()
      .nullable()
      .optional()
      .openapi({ description: 'Entity/category: mean lifespan of its active publications.' }),
    related: z
      .array(z.string())
      .optional()
      .openapi({ description: 'Entity: co-occurring entities; category: sibling paths; publisher: top entities.' }),
    state: z.string().nullable().optional().openapi({ description: 'Trend rows: lifecycle state.' }),
    forecast: Forecast.optional(),
    cabinet_url: z.string().optional().openapi({ example: 'https://app.example.com/trend/5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f' }),
    term_id: z.string().optional().openapi({ description: 'Mention rows.' }),
    match_type: z.enum(['broad', 'phrase', 'exact']).optional(),
  })
  .openapi('MetricsRow');

export const MetricsSchema = z
  .object({
    list_id: z.string().uuid(),
    kind: z.enum(['entity', 'category', 'publisher', 'trend', 'mention']),
    scope: ScopeSchema,
    items: z.array(MetricsRowSchema).openapi({ description: 'One row per item of the page, zero-filled without activity.' }),
    summary: z.object({
      scope: z.literal('page'),
      impressions: z.number().int(),
      publications_count: z.number().int().openapi({ description: 'Distinct over the page (not a sum).' }),
      publishers_count: z.number().int().optional(),
      trends_count: z.number().int().optional(),
      delta_pct: z.number().nullable().optional(),
      impressions_spark: z.array(z.number().int()).optional(),
      timeseries: z
        .array(z.object({ ts, urls: z.number().int(), impressions: z.number().int() }))
        .optional()
        .openapi({ description: 'Mention lists.' }),
    }),
    total: z.number().int().openapi({ description: 'Item count of the list.' }),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi('TrackingMetrics');

const Top = z.object({
  name: z.string(),
  pubs: z.number().int(),
  imps: z.number().int(),
  delta_pct: z.number().nullable().optional(),
  id: z.string().optional(),
  entity_id: z.string().optional(),
});
const Urls = z.object({ name: z.string(), urls: z.number().int() });

export const RollupSchema = z
  .object({
    list_id: z.string().uuid(),
    kind: z.enum(['entity', 'category', 'publisher', 'trend', 'mention']),
    scope: ScopeSchema,
    item_count: z.number().int().optional(),
    publishers: z.array(z.union([Top, Urls])).optional(),
    trends: z.array(Top).optional(),
    related: z.array(Top).optional().openapi({ description: 'Entity lists: co-occurring entities outside the list.' }),
    groups: z.array(Top).optional().openapi({ description: 'Entity lists: top-level categories of the publications.' }),
    types: z.array(Top).optional().openapi({ description: "Entity lists: entity types of the list's items." }),
    entities: z.array(z.union([Top, Urls])).optional(),
    categories: z.array(z.union([Top, Urls])).optional(),
    top_articles: z
      .array(
        z.object({
          id: z.string(),
          url: z.string(),
          title: z.string(),
          domain: z.string(),
          trend_id: z.string(),
          imps: z.number().int(),
          cabinet_url: z.string(),
        }),
      )
      .optional()
      .openapi({ description: 'Trend lists: the most seen articles of the listed trends.' }),
  })
  .openapi('TrackingRollup', {
    description:
      'Blocks by kind. entity: publishers, trends, related, groups, types. mention: publishers, entities, categories (`{name, urls}`). ' +
      'category: publishers, trends, entities. publisher: categories, trends, entities. trend: publishers, entities, categories, top_articles. Top 10 each.',
  });
