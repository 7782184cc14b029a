// Roll-ups maintained at ingest so that no request scans raw URL-hours over a window
// (docs/DATA.md explains each table and which read path uses it).
import {
  bigint,
  date,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';

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

/**
 * A number for each dimension key that dim_hours and dim_days name (drizzle/0020): given when the key's
 * first URL joins it, and anew by a full rebuild of both. Text columns in the "C" collation.
 */
export const dimKeys = pgTable(
  'dim_keys',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    kind: text('kind').$type<DimensionKind>().notNull(),
    key: text('key').notNull(),
  },
  (t) => [unique('dim_keys_kind_key_unique').on(t.kind, t.key)],
);

/**
 * Per dimension key (dim_keys), market and UTC hour: impressions and impression-weighted position
 * sum. `country` and `language` in the "C" collation (drizzle/0019: the primary key's sort compares
 * them bytewise).
 */
export const dimHours = pgTable(
  'dim_hours',
  {
    keyId: integer('key_id').notNull(),
    country: text('country').notNull(),
    language: text('language').notNull(),
    hour: tstz('hour').notNull(),
    impressions: bigint('impressions', { mode: 'number' }).notNull(),
    positionSum: doublePrecision('position_sum').notNull(),
  },
  (t) => [primaryKey({ name: 'dim_hours_pk', columns: [t.keyId, t.country, t.language, t.hour] })],
);

/** The same per UTC day: windows read whole days here and only their edge hours above. */
export const dimDays = pgTable(
  'dim_days',
  {
    keyId: integer('key_id').notNull(),
    country: text('country').notNull(),
    language: text('language').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    impressions: bigint('impressions', { mode: 'number' }).notNull(),
    positionSum: doublePrecision('position_sum').notNull(),
  },
  (t) => [primaryKey({ name: 'dim_days_pk', columns: [t.keyId, t.country, t.language, t.day] })],
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

/**
 * What a dimension key's distinct counts count: its publications (URLs), the publishers and the
 * trends of those URLs. A publisher key does not count publishers, a trend key not trends.
 */
export const ACTIVITY_UNITS = ['publication', 'publisher', 'trend'] as const;
export type ActivityUnit = (typeof ACTIVITY_UNITS)[number];

/**
 * Where a hull's activity is counted: `*` for every market and language, or one market (country, its
 * languages together), kept for the kinds in `MARKET_KINDS` only (shared/rollups/activity-counts.ts).
 */
const market = () => text('market').notNull();

/** The columns that name one counted item of a key, unit and market: the hulls', their list's and their gaps'. */
const activityGroup = () => ({
  kind: text('kind').$type<DimensionKind>().notNull(),
  key: text('key').notNull(),
  market: market(),
  unit: text('unit').$type<ActivityUnit>().notNull(),
  item: text('item').notNull(),
});

/**
 * One counted item of a dimension key (a URL of the key, or a publisher or trend of its URLs) with
 * the hull of its activity in a market (`*`: all markets and languages): [first_hour, end_hour). With the
 * holes of that activity (dim_activity_gaps) and the hull ends counted per hour and day
 * (dim_activity_hours/_days), the exact number of distinct items active in a window is a handful of
 * index range sums per key instead of a walk over every URL (docs/DATA.md).
 */
export const dimActivity = pgTable(
  'dim_activity',
  {
    ...activityGroup(),
    firstHour: tstz('first_hour').notNull(),
    /** NULL while the hull is open: its last active hour is the frontier (activityFrontier). */
    endHour: tstz('end_hour'),
  },
  (t) => [primaryKey({ name: 'dim_activity_pk', columns: [t.kind, t.key, t.market, t.unit, t.item] })],
);

/** The open hulls of dim_activity (end_hour NULL) and their first hour, for the step that closes them (drizzle/0023). */
export const dimActivityOpen = pgTable(
  'dim_activity_open',
  {
    ...activityGroup(),
    firstHour: tstz('first_hour').notNull(),
  },
  (t) => [primaryKey({ name: 'dim_activity_open_pk', columns: [t.kind, t.key, t.market, t.unit, t.item] })],
);

/**
 * One row: the hour at or after every active hour the activity hulls hold (drizzle/0023). A hull whose
 * last active hour is this one is open (dim_activity.end_hour NULL, no end mark).
 */
export const activityFrontier = pgTable('activity_frontier', {
  id: smallint('id').primaryKey().default(1),
  hour: tstz('hour').notNull(),
});

/** Hours inside an item's hull without activity: [gap_start, gap_end). */
export const dimActivityGaps = pgTable(
  'dim_activity_gaps',
  {
    ...activityGroup(),
    gapStart: tstz('gap_start').notNull(),
    gapEnd: tstz('gap_end').notNull(),
  },
  (t) => [
    primaryKey({ name: 'dim_activity_gaps_pk', columns: [t.kind, t.key, t.market, t.unit, t.item, t.gapStart] }),
    index('dim_activity_gaps_end_idx').on(t.kind, t.key, t.market, t.unit, t.gapEnd),
  ],
);

/** Per key, unit and hour: how many item hulls start (first_hour) and end (last active hour, end_hour - 1h) there. */
export const dimActivityHours = pgTable(
  'dim_activity_hours',
  {
    kind: text('kind').$type<DimensionKind>().notNull(),
    key: text('key').notNull(),
    market: market(),
    unit: text('unit').$type<ActivityUnit>().notNull(),
    hour: tstz('hour').notNull(),
    starts: integer('starts').notNull(),
    ends: integer('ends').notNull(),
  },
  (t) => [primaryKey({ name: 'dim_activity_hours_pk', columns: [t.kind, t.key, t.market, t.unit, t.hour] })],
);

/** The same per UTC day. */
export const dimActivityDays = pgTable(
  'dim_activity_days',
  {
    kind: text('kind').$type<DimensionKind>().notNull(),
    key: text('key').notNull(),
    market: market(),
    unit: text('unit').$type<ActivityUnit>().notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    starts: integer('starts').notNull(),
    ends: integer('ends').notNull(),
  },
  (t) => [primaryKey({ name: 'dim_activity_days_pk', columns: [t.kind, t.key, t.market, t.unit, t.day] })],
);
