// Reference geography: countries, languages, cities and the crawler's Discover profiles.
import { lastByKey, pgArray, textArrayColumn, upsert, type UpsertSpec } from './sql';
import { tally, type BatchContext } from './types';

const COUNTRIES: UpsertSpec = {
  table: 'countries',
  key: ['alpha_2'],
  columns: [
    { name: 'alpha_2', type: 'text' },
    { name: 'alpha_3', type: 'text' },
    { name: 'name', type: 'text' },
    { name: 'region', type: 'text' },
    { name: 'sub_region', type: 'text' },
    textArrayColumn('languages'),
    { name: 'population', type: 'int8' },
    { name: 'internet_population', type: 'int8' },
    { name: 'mobile_chrome_population', type: 'int8' },
  ],
};

const LANGUAGES: UpsertSpec = {
  table: 'languages',
  key: ['code'],
  columns: [
    { name: 'code', type: 'text' },
    { name: 'name', type: 'text' },
  ],
};

const CITIES: UpsertSpec = {
  table: 'cities',
  key: ['country_code', 'name'],
  columns: [
    { name: 'country_code', type: 'text' },
    { name: 'name', type: 'text' },
  ],
};

export async function writeCountries(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.country;
  const rows = items.map(({ record: r }) => ({ ...r, languages: pgArray(r.languages) }));
  const res = await upsert(ctx.db, COUNTRIES, rows);
  tally(ctx, 'country', items.length, res.inserted, res.updated);
}

export async function writeLanguages(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.language;
  const res = await upsert(
    ctx.db,
    LANGUAGES,
    items.map((i) => i.record),
  );
  tally(ctx, 'language', items.length, res.inserted, res.updated);
}

export async function writeCities(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.city;
  const res = await upsert(
    ctx.db,
    CITIES,
    items.map(({ record: r }) => ({ country_code: r.country, name: r.name })),
  );
  tally(ctx, 'city', items.length, res.inserted, res.updated);
}

// discover_profiles has only a serial id (no natural-key constraint), so ON CONFLICT cannot be
// used: update the matching (country, city, language) rows, then insert the missing ones. The
// batch's advisory lock keeps concurrent ingests from inserting the same profile twice.
const PROFILE_SOURCE = `s AS (
  SELECT s.ord, s.country_code, c.id AS city_id, s.language, s.is_active
  FROM unnest($1::text[], $2::text[], $3::text[], $4::bool[]) WITH ORDINALITY AS s(country_code, city, language, is_active, ord)
  LEFT JOIN cities c ON c.country_code = s.country_code AND c.name = s.city)`;
const SAME_PROFILE = 'p.country_code = s.country_code AND p.city_id IS NOT DISTINCT FROM s.city_id AND p.language = s.language';

export async function writeDiscoverProfiles(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.discover_profile;
  if (items.length === 0) return;
  const rows = lastByKey(
    items.map((i) => i.record),
    ['country', 'city', 'language'],
  );
  const params = [rows.map((r) => r.country), rows.map((r) => r.city), rows.map((r) => r.language), rows.map((r) => r.is_active)];
  const updated = await ctx.db.query(
    `WITH ${PROFILE_SOURCE} UPDATE discover_profiles p SET is_active = s.is_active FROM s
     WHERE ${SAME_PROFILE} AND p.is_active IS DISTINCT FROM s.is_active RETURNING p.id`,
    params,
  );
  const inserted = await ctx.db.query(
    `WITH ${PROFILE_SOURCE} INSERT INTO discover_profiles (country_code, city_id, language, is_active)
     SELECT s.country_code, s.city_id, s.language, s.is_active FROM s
     WHERE NOT EXISTS (SELECT 1 FROM discover_profiles p WHERE ${SAME_PROFILE})
     ORDER BY s.ord RETURNING id`, // input order = id order, whatever the batch size
    params,
  );
  tally(ctx, 'discover_profile', items.length, inserted.rows.length, updated.rows.length);
}
