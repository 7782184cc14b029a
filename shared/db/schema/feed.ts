// Feed windows (drizzle/0005_feed.sql): per-profile impressions over the windows ending at the hour
// feed_windows_state.as_of, kept current at ingest and when the hour moves (docs/DATA.md).
import { bigint, boolean, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

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
  },
  (t) => [
    primaryKey({ columns: [t.urlId, t.country, t.language] }),
    index('profile_windows_1h_idx').on(t.imp1h, t.urlId, t.country, t.language),
    index('profile_windows_24h_idx').on(t.imp24h, t.urlId, t.country, t.language),
    index('profile_windows_7d_idx').on(t.imp7d, t.urlId, t.country, t.language),
    index('profile_windows_30d_idx').on(t.imp30d, t.urlId, t.country, t.language),
    index('profile_windows_derived_idx').on(t.derived, t.urlId, t.country, t.language),
  ],
);

/** One row: the hour the windows end at (exclusive), and the one before a pending slide. */
export const feedWindowsState = pgTable('feed_windows_state', {
  id: integer('id').primaryKey(),
  asOf: tstz('as_of').notNull(),
  prevAsOf: tstz('prev_as_of').notNull(),
  pending: boolean('pending').notNull().default(false),
});
