// Response schema of /matches: a mention list's matched publications (docs/TRACKING.md "Matching (mention lists)").
import { z } from '@hono/zod-openapi';
import { MATCH_FIELDS, MATCH_TYPES } from '../../shared/db/values';

const ts = z.string().openapi({ example: '2026-11-20T08:00:00+00:00' });

const MentionSchema = z.object({
  term_id: z.string().uuid(),
  raw_text: z.string().openapi({ example: 'heat pump' }),
  match_type: z.enum(MATCH_TYPES),
  field: z.enum(MATCH_FIELDS),
  matched_text: z.string().openapi({ description: 'The text as it stands in the article.', example: 'Heat-Pump' }),
  snippet: z.string().openapi({ example: '…Wärmepumpe: Heat-Pump prices fall…' }),
});

/** One hit of a keyword in a publication, as `hits[<id>].mentions[]` lists it. */
export type Mention = z.infer<typeof MentionSchema>;

/** A matched publication, in the profile of its market first seen (in scope). */
export const PublicationSchema = z.object({
  id: z.string().uuid(),
  url: z.string(),
  cabinet_url: z.string().openapi({ description: '`{APP_URL}/article/<id>`.' }),
  title: z.string(),
  publisher: z.string(),
  domain: z.string(),
  country: z.string().openapi({ example: 'US' }),
  lang: z.string().openapi({ example: 'EN' }),
  first_seen_at: ts.openapi({ description: 'First seen in the market of this profile.' }),
  article_first_seen_at: ts.openapi({ description: 'First seen in any market.' }),
  snippet: z.string(),
});

/** A publication's hits. */
export const PublicationHitsSchema = z.object({ count: z.number().int(), mentions: z.array(MentionSchema) });

export const MatchesSchema = z
  .object({
    list_id: z.string().uuid(),
    kind: z.literal('mention'),
    scope: z.object({
      country: z.string(),
      markets: z.array(z.string()),
      lang: z.string(),
      from: ts,
      to: ts,
      history_days: z.number().int(),
      clamped: z.boolean(),
    }),
    limit: z.number().int(),
    publications: z.array(PublicationSchema),
    hits: z.record(z.string(), PublicationHitsSchema).openapi({ description: 'Keyed by publication id.' }),
    summary: z.object({
      matches: z.number().int().openapi({ description: 'Hits.' }),
      publications: z.number().int(),
      mentions: z.record(z.string(), z.number().int()).openapi({ description: 'Hits per keyword.' }),
    }),
  })
  .openapi('MentionMatches');
