// A project's watchlists (read-only through the API) and their items or mention terms.
import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { projects } from './accounts';
import { LIST_KINDS, MATCH_TYPES, type ListKind, type MatchField, type MatchType } from '../values';

const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export { LIST_KINDS, MATCH_TYPES };
export type { ListKind, MatchField, MatchType };

export const trackingLists = pgTable(
  'tracking_lists',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<ListKind>().notNull(),
    name: text('name').notNull(),
    colorIndex: integer('color_index').notNull().default(0),
    createdAt: tstz('created_at').notNull().defaultNow(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
    // Mention lists only.
    countries: text('countries').array().notNull().default(sql`'{}'::text[]`),
    langs: text('langs').array().notNull().default(sql`'{}'::text[]`),
    searchScope: text('search_scope').notNull().default('title'),
    matchTypes: text('match_types').array().notNull().default(sql`'{}'::text[]`),
    active: boolean('active').notNull().default(true),
    lastScannedAt: tstz('last_scanned_at'),
    nextScanAt: tstz('next_scan_at'),
    scanStatus: text('scan_status'),
    scanError: text('scan_error'),
    extractionStartedAt: tstz('extraction_started_at'),
  },
  (t) => [index('tracking_lists_project_idx').on(t.projectId, t.updatedAt)],
);

export const trackingListItems = pgTable(
  'tracking_list_items',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    listId: uuid('list_id')
      .notNull()
      .references(() => trackingLists.id, { onDelete: 'cascade' }),
    /** Entity id or name, category path, clean domain, trend id, or `<keyword>|<match_type>`. */
    key: text('key').notNull(),
    name: text('name').notNull(),
    type: text('type'),
    addedAt: tstz('added_at').notNull().defaultNow(),
    // Mention terms only.
    rawText: text('raw_text'),
    matchType: text('match_type').$type<MatchType>(),
    position: integer('position'),
  },
  (t) => [unique('tracking_list_items_key_uq').on(t.listId, t.key), index('tracking_list_items_added_idx').on(t.listId, t.addedAt)],
);

/** Hits of a mention list's terms, written by the list's scan (jobs), read by /matches. */
export const mentionMatches = pgTable(
  'mention_matches',
  {
    listId: uuid('list_id')
      .notNull()
      .references(() => trackingLists.id, { onDelete: 'cascade' }),
    termId: uuid('term_id')
      .notNull()
      .references(() => trackingListItems.id, { onDelete: 'cascade' }),
    urlId: uuid('url_id').notNull(),
    field: text('field').$type<MatchField>().notNull(),
    matchedText: text('matched_text').notNull(),
    snippet: text('snippet').notNull(),
    matchedAt: tstz('matched_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.termId, t.urlId, t.field] }), index('mention_matches_list_url_idx').on(t.listId, t.urlId)],
);
