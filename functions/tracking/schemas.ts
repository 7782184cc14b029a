// Tracking-list resources: a list of one kind (entity, category, publisher, trend, mention), its items and
// their keys (docs/TRACKING.md).
import { z } from '@hono/zod-openapi';
import { LIST_KINDS, MATCH_TYPES } from '../../shared/db/values';
import { limitParam, offsetParam } from '../../shared/schemas/common';
import { DEMO } from '../../shared/schemas/demo-ids';

const ts = (example: string) => z.string().openapi({ example });

export const listIdParam = z.object({
  list_id: z
    .string()
    .uuid()
    .openapi({ param: { name: 'list_id', in: 'path' }, description: 'Tracking list id.', example: DEMO.listId }),
});

const MentionFields = {
  countries: z.array(z.string()).openapi({ description: 'Watched markets, upper-case.', example: ['US', 'GB'] }),
  langs: z.array(z.string()).openapi({ description: 'Watched languages, upper-case; empty = all.', example: ['EN'] }),
  search_scope: z.enum(['title', 'body', 'both']).openapi({ description: 'Where terms are searched.', example: 'title' }),
  match_types: z.array(z.enum(MATCH_TYPES)).openapi({ example: ['broad', 'exact'] }),
  active: z.boolean().openapi({ example: true }),
  matches_count: z.number().int().openapi({ description: 'Publications matched so far.', example: 182 }),
  new_publications_24h: z.number().int().openapi({ description: 'Matched publications first seen in the last 24 hours.', example: 9 }),
  last_scanned_at: ts('2026-11-21T09:00:00+00:00').nullable(),
  next_scan_at: ts('2026-11-21T10:00:00+00:00').nullable(),
  scan_status: z.string().nullable().openapi({ description: '`succeeded`, `running` or `failed`.', example: 'succeeded' }),
  scan_error: z.string().nullable().openapi({
    description: 'Why the last scan failed: `code: message` (`scan_timeout`, `database_unavailable`, `scan_failed`); null after a success.',
    example: null,
  }),
};

export const ListRowSchema = z
  .object({
    id: z.string().uuid(),
    kind: z.enum(LIST_KINDS).openapi({ example: 'entity' }),
    name: z.string().openapi({ example: 'Competitors' }),
    color_index: z.number().int().openapi({ example: 3 }),
    item_count: z.number().int().openapi({ example: 12 }),
    created_at: ts('2026-10-01T08:00:00+00:00'),
    updated_at: ts('2026-11-20T17:45:00+00:00'),
    ...Object.fromEntries(Object.entries(MentionFields).map(([k, v]) => [k, v.optional()])),
  })
  .openapi('TrackingListRow', { description: 'Mention lists add the mention fields.' });

const UsageEntry = z.object({
  used: z.number().int().openapi({ example: 37 }),
  limit: z.number().int().nullable().openapi({
    description:
      "The cap of the project's plan (also when an internal key reads the project with `project_id`); null for a kind the plan does not cap (Scale categories, every Enterprise kind).",
    example: 100,
  }),
});

export const ListIndexSchema = z
  .object({
    lists: z.array(ListRowSchema),
    usage: z
      .object(Object.fromEntries(LIST_KINDS.map((k) => [k, UsageEntry])) as Record<(typeof LIST_KINDS)[number], typeof UsageEntry>)
      .openapi({ description: "Tracked items per kind against the plan's caps (mention: keywords)." }),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi('TrackingListIndex');

export const ListIndexQuery = z.object({
  kind: z.enum(LIST_KINDS).optional().openapi({ description: 'Only lists of this kind; omitted = all.' }),
  project_id: z
    .string()
    .uuid()
    .optional()
    .openapi({ description: 'Internal keys only: the project to read. Project keys always read their own.', example: DEMO.projectId }),
  limit: limitParam(200, 50),
  offset: offsetParam,
});

export const ItemSchema = z
  .object({
    key: z.string().openapi({ description: 'Entity id or name, category path, clean domain or trend id.', example: '/Sports/Soccer' }),
    name: z.string().openapi({ example: 'Soccer' }),
    type: z.string().nullable().openapi({ description: 'Entity type label; null for other kinds.', example: 'person' }),
    added_at: ts('2026-11-02T10:00:00+00:00'),
  })
  .openapi('TrackingListItem');

export const TermSchema = z
  .object({
    id: z.string().uuid(),
    raw_text: z.string().openapi({ example: 'heat pump' }),
    match_type: z.enum(MATCH_TYPES),
    position: z.number().int().openapi({ description: '0-based position in the list.', example: 0 }),
    matches_count: z.number().int().openapi({ example: 41 }),
    added_at: ts('2026-11-02T10:00:00+00:00'),
  })
  .openapi('MentionTerm');

export const ListDetailSchema = ListRowSchema.extend({
  items: z.array(z.union([ItemSchema, TermSchema])).openapi({ description: 'Newest added first; terms for mention lists.' }),
  mentions: z
    .array(z.string())
    .optional()
    .openapi({ description: 'Mention lists: the keywords.', example: ['heat pump'] }),
  extraction_started_at: ts('2026-10-01T08:00:00+00:00').nullable().optional(),
}).openapi('TrackingListDetail');
