// Public profile check schemas: the single check's result as the spec shapes it, and the bulk and query
// shapes this API adds (docs/PUBLIC.md "Results"). Every field is public data; nothing project- or key-related.
import { z } from '@hono/zod-openapi';

export const BULK_MAX = 100;
export const Q_MAX = 200;
export const QUERY_LIMIT_MAX = 25;

export const DomainQuerySchema = z.object({
  domain: z
    .string()
    .max(2_048)
    .openapi({
      description:
        'A domain or a full URL. Scheme, userinfo, port, path, query, fragment, `www.`, case and a trailing dot are ' +
        'normalized away; Unicode names and their punycode form give the same profile.',
      example: 'https://www.example.com/news/article?id=1',
    }),
});

export const PublicationSchema = z
  .object({
    title: z.string().openapi({ description: 'Article title.', example: 'City council approves the new tram line' }),
    url: z.string().openapi({ description: 'Article URL.', example: 'https://example.com/news/tram-line' }),
    imageUrl: z
      .string()
      .nullable()
      .openapi({ description: 'Lead image URL; null when the article has none.', example: 'https://example.com/img/tram.jpg' }),
    sourceLabel: z.string().openapi({ description: 'Publisher name as shown on the article.', example: 'Example Herald' }),
    publishedAt: z.string().openapi({
      description: 'When the article first appeared in the feed (any market), ISO 8601 UTC.',
      example: '2026-03-01T09:00:00+00:00',
    }),
  })
  .openapi('PublicPublication');

const profileFields = {
  domain: z.string().openapi({ description: 'The normalized domain (lower-case ASCII, punycode for IDN).', example: 'example.com' }),
  profileUrl: z.string().openapi({
    description: 'Link to the profile page; empty when there is no profile.',
    example: 'https://app.example.com/publisher/example.com',
  }),
  knowledgeGraphId: z
    .string()
    .openapi({ description: 'Knowledge Graph id of the publisher; empty when unknown.', example: '/g/11abcd1234' }),
  exists: z.boolean().openapi({ description: 'Whether the domain has a Discover publisher profile.', example: true }),
  title: z.string().openapi({ description: 'Profile title; empty when there is no profile.', example: 'Example Herald' }),
  totalFollowers: z
    .string()
    .openapi({ description: 'Profile followers, human-readable (`999`, `12.3K`, `1.2M`); empty when unknown.', example: '1.2M' }),
};

export const ProfileResultSchema = z
  .object({
    ok: z.boolean().openapi({ description: 'The check ran (always true in a 200).', example: true }),
    ...profileFields,
    recentPublications: z.array(PublicationSchema).openapi({ description: 'Up to 6 newest publications of the domain, newest first.' }),
  })
  .openapi('PublicProfileCheckResult');

export const BulkBodySchema = z
  .object({
    domains: z
      .array(z.string().max(4_096))
      .min(1)
      .max(BULK_MAX)
      .openapi({
        description: `1-${BULK_MAX} domains or URLs, each normalized as in the single check.`,
        example: ['example.com', 'https://www.example.org/page', 'not a domain'],
      }),
  })
  .openapi('PublicBulkCheckRequest');

const entryFields = {
  index: z.number().int().openapi({ description: 'Position of the entry in the request.', example: 0 }),
  input: z.string().openapi({ description: 'The entry as sent.', example: 'https://www.example.com/page' }),
};

export const BulkEntrySchema = z.union([
  ProfileResultSchema.extend({
    ...entryFields,
    duplicateOf: z.number().int().nullable().openapi({
      description: 'Index of the first entry with the same normalized domain; null for the first one. Duplicates carry the same result.',
      example: null,
    }),
  }).openapi('PublicBulkCheckEntry'),
  z
    .object({
      ...entryFields,
      ok: z.literal(false).openapi({ description: 'The entry could not be checked.', example: false }),
      domain: z.null().openapi({ description: 'No domain could be read from the entry.', example: null }),
      error: z
        .object({
          msg: z.string().openapi({ example: 'not a domain name or URL' }),
          type: z.string().openapi({ example: 'value_error' }),
        })
        .openapi({ description: 'Why the entry is unusable.' }),
    })
    .openapi('PublicBulkCheckInvalidEntry'),
]);

export const BulkResponseSchema = z
  .object({
    results: z.array(BulkEntrySchema).openapi({ description: 'One result per requested entry, in request order.' }),
    summary: z.object({
      requested: z.number().int().openapi({ description: 'Entries sent.', example: 3 }),
      checked: z.number().int().openapi({ description: 'Distinct normalized domains checked (what the rate limit counts).', example: 2 }),
      duplicates: z.number().int().openapi({ description: 'Entries whose domain appeared earlier in the request.', example: 0 }),
      invalid: z.number().int().openapi({ description: 'Entries that are not a domain or URL.', example: 1 }),
      exists: z.number().int().openapi({ description: 'Distinct domains that have a profile.', example: 1 }),
    }),
  })
  .openapi('PublicBulkCheckResult');

export const SearchQuerySchema = z.object({
  q: z.string().max(Q_MAX).openapi({
    description: 'Brand, publisher name, domain, entity or keyword; at least 2 characters after trimming.',
    example: 'herald',
  }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(QUERY_LIMIT_MAX)
    .default(10)
    .openapi({
      description: `Most results returned, 1-${QUERY_LIMIT_MAX}.`,
      example: 10,
      type: 'integer',
    }),
});

export const SearchMatchSchema = z
  .object({
    ...profileFields,
    match: z.object({
      reason: z.enum(['publisher_name', 'domain', 'entity', 'keyword']).openapi({
        description: 'The strongest reason the profile matched.',
        example: 'publisher_name',
      }),
      matched: z
        .string()
        .openapi({ description: 'What matched: the name, the domain, the entity name or the keyword.', example: 'Example Herald' }),
      score: z.number().openapi({ description: 'Relevance, 0-1; results are sorted by it.', example: 0.9 }),
      reasons: z.array(z.enum(['publisher_name', 'domain', 'entity', 'keyword'])).openapi({
        description: 'Every reason that matched, strongest first.',
        example: ['publisher_name', 'domain'],
      }),
    }),
  })
  .openapi('PublicProfileMatch');

export const SearchResponseSchema = z
  .object({
    q: z.string().openapi({ description: 'The query as searched (trimmed, inner whitespace collapsed).', example: 'herald' }),
    results: z.array(SearchMatchSchema).openapi({ description: 'Matching publisher profiles, most relevant first; at most `limit`.' }),
  })
  .openapi('PublicProfileQueryResult');
