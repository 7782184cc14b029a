// Geo resources: regions (countries, by alpha-2 code) with their population figures and cities, and languages.
import { z } from '@hono/zod-openapi';
import { queryBool } from '../../shared/schemas/common';

export const alpha2Param = z.object({
  alpha_2: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'Expected an ISO 3166-1 alpha-2 code')
    .transform((v) => v.toUpperCase())
    .openapi({ param: { name: 'alpha_2', in: 'path' }, description: 'Country code; case-insensitive.', example: 'US' }),
});

export const PopulationStatsSchema = z
  .object({
    population: z.number().int().openapi({ example: 335_000_000 }),
    internet_population: z.number().int().openapi({ example: 307_000_000 }),
    mobile_chrome_population: z.number().int().openapi({ example: 148_000_000 }),
    total_discover_impressions_per_day: z.number().int().openapi({
      description: 'Mean daily Discover impressions observed in this market over the last 7 complete UTC days.',
      example: 1_250_000,
    }),
  })
  .openapi('PopulationStats');

export const RegionSchema = z
  .object({
    alpha_2: z.string().openapi({ example: 'US' }),
    name: z.string().openapi({ example: 'United States' }),
    region: z.string().openapi({ example: 'Americas' }),
    sub_region: z.string().openapi({ example: 'Northern America' }),
    languages: z.array(z.string()).openapi({ example: ['en', 'es'] }),
    cities_count: z.number().int().openapi({ description: 'Cities with Discover profiles.', example: 4 }),
    profiles_count: z.number().int().openapi({ description: 'Discover profiles (crawler vantage points) in the market.', example: 12 }),
    is_active: z.boolean().openapi({ description: 'At least one profile is active.', example: true }),
    stats: PopulationStatsSchema.optional().openapi({ description: 'With `with_stats`, when the country has population data.' }),
    has_entity_activity: z.boolean().optional().openapi({ description: 'With `entity`: the entity had impressions in the window.' }),
    entity_impressions: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'With `entity`: impressions of articles mentioning it in the window.' }),
  })
  .openapi('Region');

export const RegionsQuerySchema = z.object({
  active_only: queryBool('Only regions with at least one active profile.'),
  with_stats: queryBool('Attach `stats`.'),
  entity: z.string().min(1).optional().openapi({ description: 'Knowledge-graph id (`/m/...`) or normalized name.', example: '/m/0d06m5' }),
  window: z.enum(['1h', '24h', '7d', '30d']).default('24h').openapi({ description: 'Window of the entity check, ending now.' }),
  entity_only: queryBool('With `entity`, drop regions without activity.'),
});

export const CitySchema = z
  .object({
    id: z.number().int().openapi({ example: 17 }),
    name: z.string().openapi({ example: 'Chicago' }),
    is_active: z.boolean().openapi({ description: 'At least one active profile in the city.', example: true }),
  })
  .openapi('City');

export const RegionDetailSchema = z
  .object({
    alpha_2: z.string().openapi({ example: 'US' }),
    alpha_3: z.string().openapi({ example: 'USA' }),
    name: z.string().openapi({ example: 'United States' }),
    region: z.string().openapi({ example: 'Americas' }),
    sub_region: z.string().openapi({ example: 'Northern America' }),
    languages: z.array(z.string()).openapi({ example: ['en', 'es'] }),
    cities: z.array(CitySchema),
    stats: PopulationStatsSchema.extend({ alpha_2: z.string().openapi({ example: 'us' }) })
      .nullable()
      .openapi({ description: 'Population block (null without population data); carries a lower-case `alpha_2`.' }),
    total_articles: z.number().int().openapi({ description: 'URL profiles (URL x language) ever seen in the market.', example: 48_210 }),
    articles_last_24h: z.number().int().openapi({ description: 'URL profiles first seen in the last 24 hours.', example: 1_204 }),
    first_data_at: z.string().nullable().openapi({
      description:
        'First observation in the market; null only while the market has no observation at all (reference data loaded before any data).',
      example: '2026-10-22T00:00:00+00:00',
    }),
  })
  .openapi('RegionDetail');

export const LanguageSchema = z
  .object({
    code: z.string().openapi({ example: 'en' }),
    name: z.string().openapi({ example: 'English' }),
    regions: z.array(z.string()).openapi({ description: 'Upper-case codes of markets where it is spoken.', example: ['GB', 'US'] }),
    article_count: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'With `with_article_counts`: exact URL profiles in this language.', example: 90_311 }),
  })
  .openapi('Language');
