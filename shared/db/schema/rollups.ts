// Roll-ups maintained at ingest so that no request scans raw URL-hours over a window
// (docs/DATA.md explains each table and which read path uses it).
import { bigint, date, doublePrecision, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** `term` = a mention list's term, linked to the URLs its scans matched. */
export const DIMENSION_KINDS = ['entity', 'category', 'publisher', 'trend', 'term'] as const;
export type DimensionKind = (typeof DIMENSION_KINDS)[number];

/** Which URLs belong to a dimension key: entity id, category path, clean domain, trend id, term id. */
export const urlDimensions = pgTable(
  'url_dimensions',
  {
    kind: text('kind').$type<DimensionKind>().notNull(),
    key: text('key').notNull(),
    urlId: uuid('url_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.key, t.urlId] }), index('url_dimensions_url_idx').on(t.urlId)],
);

/** Per dimension key, market and UTC hour: impressions and impression-weighted position sum. */
export const dimHours = pgTable(
  'dim_hours',
  {
    kind: text('kind').$type<DimensionKind>().notNull(),
    key: text('key').notNull(),
    country: text('country').notNull(),
    language: text('language').notNull(),
    hour: tstz('hour').notNull(),
    impressions: bigint('impressions', { mode: 'number' }).notNull(),
    positionSum: doublePrecision('position_sum').notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.key, t.country, t.language, t.hour] })],
);

/** The same per UTC day: windows read whole days here and only their edge hours above. */
export const dimDays = pgTable(
  'dim_days',
  {
    kind: text('kind').$type<DimensionKind>().notNull(),
    key: text('key').notNull(),
    country: text('country').notNull(),
    language: text('language').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    impressions: bigint('impressions', { mode: 'number' }).notNull(),
    positionSum: doublePrecision('position_sum').notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.key, t.country, t.language, t.day] })],
);

/**
 * Contiguous runs of activity (hours with impressions) of a URL in a market, [start_hour, end_hour).
 * Distinct publications/publishers/trends over any window are counted from these exactly: a URL is
 * active in a window when one of its runs overlaps it.
 */
export const urlSpans = pgTable(
  'url_spans',
  {
    urlId: uuid('url_id').notNull(),
    country: text('country').notNull(),
    language: text('language').notNull(),
    startHour: tstz('start_hour').notNull(),
    endHour: tstz('end_hour').notNull(),
  },
  (t) => [primaryKey({ columns: [t.urlId, t.country, t.language, t.startHour] })],
);
