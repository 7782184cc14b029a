// Geo read paths. The region reads take the key's Scope (shared/scope/scope.ts), so neither can list or
// describe a region outside its markets; the figures of regions are read for codes those reads (or
// the handler's check against the same Scope) returned.
import { type GetColumnData, sql } from 'drizzle-orm';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import { articleEntities, entities, marketDays, observations, urlProfiles } from '../../shared/db/schema/content';
import { cities, countries, discoverProfiles, languages } from '../../shared/db/schema/geo';
import { marketsParam, type Scope } from '../../shared/scope/scope';
import type { Window } from '../../shared/time/windows';

export interface RegionRow {
  alpha_2: GetColumnData<typeof countries.alpha2>;
  alpha_3: GetColumnData<typeof countries.alpha3>;
  name: GetColumnData<typeof countries.name>;
  region: GetColumnData<typeof countries.region>;
  sub_region: GetColumnData<typeof countries.subRegion>;
  languages: GetColumnData<typeof countries.languages>;
  population: GetColumnData<typeof countries.population>;
  internet_population: GetColumnData<typeof countries.internetPopulation>;
  mobile_chrome_population: GetColumnData<typeof countries.mobileChromePopulation>;
  profiles_count: number;
  cities_count: number;
  is_active: boolean;
}

const REGION_COLUMNS = sql`${countries.alpha2}, ${countries.alpha3}, ${countries.name}, ${countries.region}, ${countries.subRegion},
  ${countries.languages}, ${countries.population}::float8 AS population,
  ${countries.internetPopulation}::float8 AS internet_population,
  ${countries.mobileChromePopulation}::float8 AS mobile_chrome_population,
  coalesce(p.profiles_count, 0)::int AS profiles_count, coalesce(p.cities_count, 0)::int AS cities_count,
  coalesce(p.is_active, false) AS is_active`;

/** Per market: its Discover profiles, their cities and whether any is active (`p` beside `countries`). */
const PROFILES = sql`SELECT ${discoverProfiles.countryCode}, count(*) AS profiles_count,
  count(DISTINCT ${discoverProfiles.cityId}) AS cities_count, bool_or(${discoverProfiles.isActive}) AS is_active
  FROM ${discoverProfiles} GROUP BY ${discoverProfiles.countryCode}`;

/** Regions with at least one Discover profile, by name. */
export function listRegions(db: Db, scope: Scope, activeOnly: boolean) {
  const markets = sql.param(marketsParam(scope));
  return sqlRows<RegionRow>(
    db,
    sql`SELECT ${REGION_COLUMNS} FROM ${countries} JOIN (${PROFILES}) p ON p.country_code = ${countries.alpha2}
     WHERE (${markets}::text[] IS NULL OR ${countries.alpha2} = ANY(${markets}::text[])) AND (NOT ${activeOnly}::boolean OR p.is_active)
     ORDER BY ${countries.name}`,
  );
}

/** The region, if it lies in the scope's markets (a region outside them reads as unknown). */
export async function getRegion(db: Db, scope: Scope, alpha2: string): Promise<RegionRow | undefined> {
  const markets = sql.param(marketsParam(scope));
  const [row] = await sqlRows<RegionRow>(
    db,
    sql`SELECT ${REGION_COLUMNS} FROM ${countries} LEFT JOIN (${PROFILES}) p ON p.country_code = ${countries.alpha2}
     WHERE ${countries.alpha2} = ${alpha2} AND (${markets}::text[] IS NULL OR ${countries.alpha2} = ANY(${markets}::text[]))`,
  );
  return row;
}

/** Mean daily impressions over the last 7 complete UTC days before `today` (YYYY-MM-DD). */
export async function dailyImpressions(db: Db, codes: string[], today: string): Promise<Map<string, number>> {
  const rows = await sqlRows<{ country: GetColumnData<typeof marketDays.country>; per_day: number }>(
    db,
    sql`SELECT ${marketDays.country}, round(sum(${marketDays.impressions}) / 7.0)::float8 AS per_day FROM ${marketDays}
     WHERE ${marketDays.country} = ANY(${sql.param(codes)}::text[]) AND ${marketDays.day} >= ${today}::date - 7 AND ${marketDays.day} < ${today}::date
     GROUP BY ${marketDays.country}`,
  );
  return new Map(rows.map((r) => [r.country, r.per_day]));
}

/** Impressions in `window` of articles mentioning the entity (kg id or normalized name), per market. */
export async function entityImpressions(db: Db, entity: string, window: Window, codes: string[]) {
  const rows = await sqlRows<{ country: GetColumnData<typeof observations.country>; impressions: number }>(
    db,
    sql`SELECT ${observations.country}, sum(${observations.impressions})::float8 AS impressions
     FROM ${entities} JOIN ${articleEntities} ON ${articleEntities.entityId} = ${entities.id}
       JOIN ${observations} ON ${observations.urlId} = ${articleEntities.urlId}
     WHERE (${entities.kgId} = ${entity} OR ${entities.normalizedName} = lower(trim(${entity})))
       AND ${observations.country} = ANY(${sql.param(codes)}::text[])
       AND ${observations.hour} >= ${window.from.toISOString()} AND ${observations.hour} < ${window.to.toISOString()}
     GROUP BY ${observations.country}`,
  );
  return new Map(rows.map((r) => [r.country, r.impressions]));
}

export interface CityRow {
  id: GetColumnData<typeof cities.id>;
  name: GetColumnData<typeof cities.name>;
  is_active: boolean;
}

/** Cities of a market that host Discover profiles. */
export function listCities(db: Db, alpha2: string, activeOnly: boolean) {
  return sqlRows<CityRow>(
    db,
    sql`SELECT ${cities.id}, ${cities.name}, bool_or(${discoverProfiles.isActive}) AS is_active
     FROM ${cities} JOIN ${discoverProfiles} ON ${discoverProfiles.cityId} = ${cities.id}
     WHERE ${cities.countryCode} = ${alpha2} GROUP BY ${cities.id}, ${cities.name}
     HAVING NOT ${activeOnly}::boolean OR bool_or(${discoverProfiles.isActive}) ORDER BY ${cities.name}`,
  );
}

export interface ArticleTotals {
  total_articles: number;
  articles_last_24h: number;
  first_data_at: Date | null;
}

export async function articleTotals(db: Db, alpha2: string, since: Date): Promise<ArticleTotals> {
  const [row] = await sqlRows<ArticleTotals>(
    db,
    sql`SELECT (SELECT coalesce(sum(${marketDays.newUrls}), 0) FROM ${marketDays} WHERE ${marketDays.country} = ${alpha2})::float8 AS total_articles,
            (SELECT count(*) FROM ${urlProfiles} WHERE ${urlProfiles.country} = ${alpha2} AND ${urlProfiles.firstSeen} >= ${since.toISOString()})::int
              AS articles_last_24h,
            (SELECT min(${urlProfiles.firstSeen}) FROM ${urlProfiles} WHERE ${urlProfiles.country} = ${alpha2}) AS first_data_at`,
  );
  return row;
}

export interface LanguageRow {
  code: GetColumnData<typeof languages.code>;
  name: GetColumnData<typeof languages.name>;
  regions: GetColumnData<typeof countries.alpha2>[];
  article_count: number | null;
}

export function listLanguages(db: Db, withCounts: boolean) {
  return sqlRows<LanguageRow>(
    db,
    sql`SELECT ${languages.code}, ${languages.name},
       coalesce((SELECT array_agg(${countries.alpha2} ORDER BY ${countries.alpha2}) FROM ${countries}
                 WHERE ${languages.code} = ANY(${countries.languages})), '{}') AS regions,
       CASE WHEN ${withCounts}::boolean THEN (SELECT coalesce(sum(${marketDays.newUrls}), 0) FROM ${marketDays}
                                              WHERE ${marketDays.language} = ${languages.code})::float8 END AS article_count
     FROM ${languages} ORDER BY ${languages.code}`,
  );
}
