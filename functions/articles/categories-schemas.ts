// GET /v1/analytics/categories: query and response schemas.
import { z } from '@hono/zod-openapi';
import { limitParam, offsetParam, queryBool } from '../../shared/schemas/common';
import { WindowQuery } from '../../shared/scope/window-scope';

const ts = z.string().openapi({ example: '2026-11-14T00:00:00+00:00' });

export const CategoryAnalyticsQuery = z.object({
  ...WindowQuery,
  top_level: queryBool('Only one-segment paths (`/Sports`).'),
  parent: z.string().min(2).optional().openapi({
    description:
      'Only the paths below this path (children and their descendants), e.g. `/Sports` gives `/Sports/Soccer`. Not with `top_level`.',
    example: '/Sports',
  }),
  limit: limitParam(200, 50),
  offset: offsetParam,
});

export const AnalyticsScopeSchema = z
  .object({
    country: z.string().openapi({ description: 'As requested: `all` or a country code.', example: 'all' }),
    markets: z.array(z.string()).openapi({ description: 'Resolved markets, lower-case.', example: ['gb', 'us'] }),
    lang: z.string().openapi({ description: 'As requested: `all` or a language code.', example: 'all' }),
    from: ts.openapi({ description: 'Window start (UTC, inclusive), after clamping to the plan history.' }),
    to: ts.openapi({ description: 'Window end (UTC, exclusive).', example: '2026-11-20T12:30:00+00:00' }),
    prev_from: ts.openapi({
      description: 'Start of the previous window (same length, right before).',
      example: '2026-11-07T11:30:00+00:00',
    }),
    prev_to: ts.openapi({ description: 'End of the previous window (= `from`).' }),
    history_days: z.number().int().openapi({ description: 'History depth of the plan.', example: 365 }),
    clamped: z.boolean().openapi({ description: 'The requested start was moved forward to the plan history.', example: false }),
  })
  .openapi('AnalyticsScope');

export const CategoryStatsSchema = z
  .object({
    name: z.string().openapi({ description: 'Taxonomy path, exactly as articles are tagged with it.', example: '/Sports/Soccer' }),
    impressions: z.number().int().openapi({ description: 'Impressions of its articles in the window and markets.', example: 182_400 }),
    previous_impressions: z.number().int().openapi({ description: 'The same over the previous window.', example: 150_000 }),
    publications: z.number().int().openapi({ description: 'Distinct articles active (with impressions) in the window.', example: 412 }),
    publishers: z.number().int().openapi({ description: 'Distinct publishers of those articles.', example: 57 }),
    avg_position: z.number().nullable().openapi({ description: 'Impression-weighted mean feed position in the window.', example: 4.21 }),
    delta_pct: z.number().nullable().openapi({
      description: 'Impressions against the previous window, % (one decimal); null without previous impressions.',
      example: 21.6,
    }),
  })
  .openapi('CategoryStats');

export const CategoryAnalyticsSchema = z
  .object({
    scope: AnalyticsScopeSchema,
    categories: z
      .array(CategoryStatsSchema)
      .openapi({ description: 'Categories with impressions in the window, most impressions first (ties by path).' }),
    total: z.number().int().openapi({ description: 'Categories with impressions in the window (all pages).', example: 31 }),
    limit: z.number().int().openapi({ example: 50 }),
    offset: z.number().int().openapi({ example: 0 }),
  })
  .openapi('CategoryAnalytics');
