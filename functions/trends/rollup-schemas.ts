// The trend roll-up payload (designed here: the spec names a trend roll-up with `top_articles[]`).
import { z } from '@hono/zod-openapi';
import { WindowScopeSchema } from '../../shared/scope/window-scope';

const UUID = '3f6c2a1e-8b4d-4c2e-9a7f-1d2e3f4a5b6c';
const int = (description: string, example: number) => z.number().int().openapi({ description, example });
const num = (description: string, example: number) => z.number().openapi({ description, example });

export const TrendRollupSchema = z
  .object({
    trend_id: z.string().uuid().openapi({ example: UUID }),
    cabinet_url: z
      .string()
      .openapi({ description: 'The trend page: `{app_url}/trend/<id>`.', example: `https://app.example.com/trend/${UUID}` }),
    scope: WindowScopeSchema,
    totals: z.object({
      publications: int('Articles of the trend with impressions in the window (markets, language).', 120),
      impressions: num('Their impressions in the window.', 48_200),
      publishers: int('Distinct publishers (domains) of those articles.', 37),
      new_articles: int('Articles of the trend first seen in the window that surfaced in the markets (language).', 41),
      prev_impressions: num('Impressions in the previous window of the same length.', 30_100),
      delta_pct: z
        .number()
        .nullable()
        .openapi({ description: 'Change of impressions against the previous window, %; null when it had none.', example: 60.1 }),
    }),
    top_articles: z
      .array(
        z.object({
          id: z.string().uuid().openapi({ example: UUID }),
          url: z.string().openapi({ example: 'https://capitalchronicle.com/news/parliament' }),
          cabinet_url: z.string().openapi({ description: '`{app_url}/article/<id>`.', example: `https://app.example.com/article/${UUID}` }),
          title: z.string().openapi({ example: 'Parliament votes tonight' }),
          domain: z.string().openapi({ example: 'capitalchronicle.com' }),
          publisher: z.string().openapi({ example: 'Capital Chronicle' }),
          first_seen_at: z.string().openapi({ example: '2026-11-20T08:00:00+00:00' }),
          impressions: num('Impressions in the window.', 9_400),
        }),
      )
      .openapi({ description: `Up to 10 articles, most impressions first.` }),
    publishers: z
      .array(
        z.object({
          domain: z.string().openapi({ example: 'capitalchronicle.com' }),
          name: z.string().openapi({ example: 'Capital Chronicle' }),
          pubs: int('Publications.', 12),
          imps: num('Impressions.', 8_100),
        }),
      )
      .openapi({ description: 'Top 10 publishers by impressions.' }),
    countries: z
      .array(
        z.object({
          country: z.string().openapi({ example: 'US' }),
          pubs: int('Publications with impressions in this market.', 80),
          imps: num('Impressions in this market.', 30_000),
        }),
      )
      .openapi({ description: 'Top 10 markets by impressions.' }),
    entities: z
      .array(
        z.object({
          entity_id: z.string().uuid().openapi({ example: UUID }),
          name: z.string().openapi({ example: 'Kwame Sato' }),
          pubs: int('Publications mentioning it.', 30),
          imps: num('Their impressions.', 12_000),
        }),
      )
      .openapi({ description: 'Top 10 entities mentioned by the publications, by impressions.' }),
  })
  .openapi('TrendRollup');
