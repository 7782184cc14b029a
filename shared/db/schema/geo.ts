// Reference geography and the crawler's Discover profiles (vantage points per city and language).
import { bigint, boolean, index, integer, pgTable, serial, text, timestamp, unique } from 'drizzle-orm/pg-core';

export const countries = pgTable('countries', {
  alpha2: text('alpha_2').primaryKey(),
  alpha3: text('alpha_3').notNull(),
  name: text('name').notNull(),
  region: text('region').notNull(),
  subRegion: text('sub_region').notNull(),
  /** Language codes spoken in the market, lower-case ISO 639-1. */
  languages: text('languages').array().notNull(),
  population: bigint('population', { mode: 'number' }),
  internetPopulation: bigint('internet_population', { mode: 'number' }),
  mobileChromePopulation: bigint('mobile_chrome_population', { mode: 'number' }),
});

export const languages = pgTable('languages', {
  code: text('code').primaryKey(),
  name: text('name').notNull(),
});

export const cities = pgTable(
  'cities',
  {
    id: serial('id').primaryKey(),
    countryCode: text('country_code')
      .notNull()
      .references(() => countries.alpha2),
    name: text('name').notNull(),
  },
  (t) => [unique('cities_country_name_uq').on(t.countryCode, t.name)],
);

/** A crawler profile observing the Discover feed from one city in one language. */
export const discoverProfiles = pgTable(
  'discover_profiles',
  {
    id: serial('id').primaryKey(),
    countryCode: text('country_code')
      .notNull()
      .references(() => countries.alpha2),
    cityId: integer('city_id').references(() => cities.id),
    language: text('language').notNull(),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('discover_profiles_country_idx').on(t.countryCode), index('discover_profiles_city_idx').on(t.cityId)],
);
