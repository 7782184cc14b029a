// Feed windows (drizzle/0005_feed.sql): per-profile impressions over the windows ending at the hour
// feed_windows_state.as_of, kept current at ingest and when the hour moves (docs/DATA.md).
import { bigint, boolean, index, integer, pgTable, primaryKey, real, text, timestamp, uuid } from 'drizzle-orm/pg-core';

const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const profileWindows = pgTable(
  'profile_windows',
  {
    urlId: uuid('url_id').notNull(),
    country: text('country').notNull(),
    language: text('language').notNull(),
    imp1h: bigint('imp_1h', { mode: 'number' }).notNull().default(0),
    imp24h: bigint('imp_24h', { mode: 'number' }).notNull().default(0),
    imp7d: bigint('imp_7d', { mode: 'number' }).notNull().default(0),
    imp30d: bigint('imp_30d', { mode: 'number' }).notNull().default(0),
    /** The window of the same length right before; null when it lies before the profile's first hour. */
    prev1h: bigint('prev_1h', { mode: 'number' }),
    prev24h: bigint('prev_24h', { mode: 'number' }),
    prev7d: bigint('prev_7d', { mode: 'number' }),
    prev30d: bigint('prev_30d', { mode: 'number' }),
    /** The `derived` sort key: 5040 x the sum of the four windows' hourly rates (docs/DATA.md). */
    derived: bigint('derived', { mode: 'number' }).notNull().default(0),
    /** Copies of url_profiles' sort values (drizzle/0009_feed_snapshots.sql), so every sort is versioned here. */
    firstSeen: tstz('first_seen'),
    lastSeen: tstz('last_seen'),
    avgPosition: real('avg_position'),
    /** The feed version that wrote the current sort values (docs/DATA.md "Feed snapshots"). */
    validFrom: bigint('valid_from', { mode: 'number' }).notNull().default(0),
    /** The feed version that first wrote this row: the profile's arrival, in commit order (drizzle/0022, /v2/live/stream). */
    seenVersion: bigint('seen_version', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.urlId, t.country, t.language] }),
    index('profile_windows_1h_idx').on(t.imp1h, t.urlId, t.country, t.language),
    index('profile_windows_24h_idx').on(t.imp24h, t.urlId, t.country, t.language),
    index('profile_windows_7d_idx').on(t.imp7d, t.urlId, t.country, t.language),
    index('profile_windows_30d_idx').on(t.imp30d, t.urlId, t.country, t.language),
    index('profile_windows_derived_idx').on(t.derived, t.urlId, t.country, t.language),
    index('profile_windows_first_seen_idx').on(t.firstSeen, t.urlId, t.country, t.language),
    index('profile_windows_last_seen_idx').on(t.lastSeen, t.urlId, t.country, t.language),
    index('profile_windows_avg_position_idx').on(t.avgPosition, t.urlId, t.country, t.language),
    index('profile_windows_seen_idx').on(t.seenVersion, t.urlId, t.country, t.language),
  ],
);

const HISTORY_INDEX = {
  imp1h: '1h',
  imp24h: '24h',
  imp7d: '7d',
  imp30d: '30d',
  derived: 'derived',
  firstSeen: 'first_seen',
  lastSeen: 'last_seen',
  avgPosition: 'avg_position',
} as const;

/**
 * The sort values profile_windows replaced, valid for feed versions [valid_from, valid_to): what a
 * cursor page of an iteration begun at a version in that range reads. Kept 25 h (jobs cron prune).
 */
export const profileWindowsHistory = pgTable(
  'profile_windows_history',
  {
    urlId: uuid('url_id').notNull(),
    country: text('country').notNull(),
    language: text('language').notNull(),
    imp1h: bigint('imp_1h', { mode: 'number' }).notNull(),
    imp24h: bigint('imp_24h', { mode: 'number' }).notNull(),
    imp7d: bigint('imp_7d', { mode: 'number' }).notNull(),
    imp30d: bigint('imp_30d', { mode: 'number' }).notNull(),
    derived: bigint('derived', { mode: 'number' }).notNull(),
    firstSeen: tstz('first_seen'),
    lastSeen: tstz('last_seen'),
    avgPosition: real('avg_position'),
    validFrom: bigint('valid_from', { mode: 'number' }).notNull(),
    validTo: bigint('valid_to', { mode: 'number' }).notNull(),
    replacedAt: tstz('replaced_at').notNull().defaultNow(),
  },
  (t) => [
    // The migration adds INCLUDE (valid_from, valid_to) to each (drizzle's index builder cannot express it).
    ...(['imp1h', 'imp24h', 'imp7d', 'imp30d', 'derived', 'firstSeen', 'lastSeen', 'avgPosition'] as const).map((c) =>
      index(`profile_windows_history_${HISTORY_INDEX[c]}_idx`).on(t[c], t.urlId, t.country, t.language),
    ),
    index('profile_windows_history_replaced_idx').on(t.replacedAt),
  ],
);

/** One row: the feed version counter; bumped by every windows write, its row lock orders versions by commit. */
export const feedVersions = pgTable('feed_versions', {
  id: integer('id').primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull(),
});

/** One row: the hour the windows end at (exclusive), and the one before a pending slide. */
export const feedWindowsState = pgTable('feed_windows_state', {
  id: integer('id').primaryKey(),
  asOf: tstz('as_of').notNull(),
  prevAsOf: tstz('prev_as_of').notNull(),
  pending: boolean('pending').notNull().default(false),
});
