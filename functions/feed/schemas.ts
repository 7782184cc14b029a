// Request and response schemas of the feed area (the feed item itself is shared/schemas/feed-item.ts).
import { z } from '@hono/zod-openapi';
import { isoQueryParam } from '../../shared/time/dates';
import { LIST_CAP_NOTE } from '../../shared/scope/list-caps';
import { limitParam, offsetParam, queryBool } from '../../shared/schemas/common';
import { FeedItemSchema } from '../../shared/schemas/feed-item';

export const SORT_KEYS = [
  'derived',
  'impressions_1h',
  'impressions_24h',
  'impressions_7d',
  'impressions_30d',
  'first_seen',
  'last_seen',
  'avg_position',
] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** Parameters /v2/feed and /v2/live share. */
export const FilterQuery = {
  country: z
    .string()
    .regex(/^([A-Za-z]{2}|all)$/, 'Expected an ISO 3166-1 alpha-2 code or `all`')
    .default('all')
    .openapi({
      description:
        "Market (ISO 3166-1 alpha-2) or `all` (every market of the key). A country outside the key's markets is 403, naming it and the allowed ones.",
      example: 'us',
    }),
  lang: z
    .string()
    .regex(/^([A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?|all)$/, 'Expected an ISO 639-1 code or `all`')
    .default('all')
    .openapi({ description: 'Feed language of the profile (ISO 639-1) or `all`.', example: 'en' }),
  category: z
    .string()
    .max(2000)
    .optional()
    .openapi({
      description:
        'Taxonomy paths separated by `;`. A path matches itself and every descendant by whole segment, case-sensitively ' +
        "(`/Sports` matches `/Sports/Soccer`, not `/Sportswear`). A path outside the plan's top-level categories is 403 `category_not_in_plan`." +
        LIST_CAP_NOTE,
      example: '/Sports;/News/Politics',
    }),
  entity: z
    .string()
    .max(2000)
    .optional()
    .openapi({
      description: `Knowledge-graph ids (\`/m/...\`) or entity names (matched trimmed and case-insensitively), separated by \`;\`.${LIST_CAP_NOTE}`,
      example: '/m/06qjgc;Lionel Messi',
    }),
  match: z
    .enum(['any', 'all'])
    .default('any')
    .openapi({ description: 'How several categories (and several entities) combine: `any` or `all`.' }),
  include_markdown: queryBool('Include `markdown_content`. Answers with markdown are never served from the response cache.'),
  limit: limitParam(200, 50),
  offset: offsetParam.openapi({ description: 'Rows to skip, 0-10000 (deeper pages: follow `next_cursor`). Not combinable with `cursor`.' }),
  // Empty reads as absent (the first page): the document's example is the empty cursor, the one value
  // that is valid before any page was read.
  cursor: z
    .string()
    .max(2000)
    .optional()
    .transform((v) => v || undefined)
    .openapi({
      example: '',
      description:
        'Opaque cursor of the next page: take it from `next_cursor` of the previous page (also in its `Link: rel="next"` ' +
        'header); empty or absent means the first page. Send it with the ' +
        'same other parameters and key; it keeps the iteration stable while new data arrives and costs the same on any page. ' +
        'Altered, foreign or expired (24 h) cursors answer 400.',
    }),
};

export const FeedQuery = z.object({
  ...FilterQuery,
  period: z
    .enum(['1h', '24h', '7d', '30d', 'custom'])
    .optional()
    .openapi({
      description:
        'A non-custom period lists profiles seen in the last 1h/24h/7d/30d (date_from = now minus the window; date_to is ignored). ' +
        '`custom` uses `date_from`/`date_to`. Without a period, the default sort is `impressions_24h`; with one, `derived`.',
    }),
  date_from: isoQueryParam(
    "Lower bound: profiles last seen after it. Used with `period=custom` or without a period; moved forward to the plan's history.",
    '2026-11-01T00:00:00Z',
  ),
  date_to: isoQueryParam(
    'Upper bound: profiles first seen before it. Used with `period=custom` or without a period; ignored for other periods.',
    '2026-11-08T00:00:00Z',
  ),
  sort_by: z
    .string()
    .max(40)
    .optional()
    .openapi({
      description:
        'One of `derived`, `impressions_1h`, `impressions_24h`, `impressions_7d`, `impressions_30d`, `first_seen`, `last_seen`, ' +
        '`avg_position`; unknown values answer 400. `derived` ranks recent impressions and freshness: 5040 x (imp_1h/1 + imp_24h/24 + ' +
        'imp_7d/168 + imp_30d/720), the sum of the mean hourly impressions over the four windows (an integer, so it is deterministic). ' +
        'Default: `impressions_24h` without a period, `derived` with one. Ties break on url_id, country, language in the same order.',
      example: 'derived',
    }),
  sort_order: z.enum(['asc', 'desc']).default('desc').openapi({ description: '`asc` or `desc` (default).' }),
});

export const LiveQuery = z.object({
  ...FilterQuery,
  since_minutes: z.coerce
    .number()
    .int()
    .min(5)
    .max(1440)
    .default(60)
    .openapi({ description: 'Profiles first seen in the last N minutes, 5-1440.', example: 60, type: 'integer' }),
});

export const ProfileQuery = z.object({
  include_markdown: queryBool('Include `markdown_content` (default true here).', true),
});

const cursorFields = {
  next_cursor: z.string().nullable().openapi({
    description:
      'Cursor of the next page; null on the last page, and on every page of a deployment without a trusted `CURSOR_SECRET` (offset paging only there).',
    example: null,
  }),
};

export const FeedPageSchema = z
  .object({
    items: z.array(FeedItemSchema),
    total: z
      .number()
      .int()
      .openapi({ description: 'Profiles matching the filters (counted once per iteration when paging by cursor).', example: 1280 }),
    limit: z.number().int().openapi({ example: 50 }),
    offset: z.number().int().openapi({ description: 'As requested; 0 on cursor pages.', example: 0 }),
    history_clamped: z.boolean().openapi({
      description: "The requested start (`date_from`, or now minus `period`) lay before the plan's history and was moved forward to it.",
      example: false,
    }),
    ...cursorFields,
  })
  .openapi('FeedPage');

export const LivePageSchema = z
  .object({
    since: z
      .string()
      .openapi({ description: 'now - since_minutes: profiles first seen at or after it.', example: '2026-03-01T11:00:00+00:00' }),
    items: z.array(FeedItemSchema),
    total: z.number().int().openapi({ example: 12 }),
    limit: z.number().int().openapi({ example: 50 }),
    offset: z.number().int().openapi({ example: 0 }),
    ...cursorFields,
  })
  .openapi('LivePage');

export const ProfilesSchema = z.array(FeedItemSchema).openapi('FeedItemProfiles');
