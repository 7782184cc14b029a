// Geo read paths. The region reads take the key's Scope (shared/scope.ts), so neither can list or
// describe a region outside its markets; the figures of regions are read for codes those reads (or
// the handler's check against the same Scope) returned.
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import { marketsParam, type Scope } from '../../shared/scope';
import type { Window } from '../../shared/windows';

export interface RegionRow {
  alpha_2: string;
  alpha_3: string;
  name: string;
  region: string;
  sub_region: string;
  languages: string[];
  population: number | null;
  internet_population: number | null;
  mobile_chrome_population: number | null;
  profiles_count: number;
  cities_count: number;
  is_active: boolean;
}

const REGION_COLUMNS = `c.alpha_2, c.alpha_3, c.name, c.region, c.sub_region, c.languages,
  c.population::float8 AS population, c.internet_population::float8 AS internet_population,
  c.mobile_chrome_population::float8 AS mobile_chrome_population,
  coalesce(p.profiles_count, 0)::int AS profiles_count, coalesce(p.cities_count, 0)::int AS cities_count,
  coalesce(p.is_active, false) AS is_active`;

const PROFILES = `SELECT country_code, count(*) AS profiles_count, count(DISTINCT city_id) AS cities_count,
  bool_or(is_active) AS is_active FROM discover_profiles GROUP BY country_code`;

/** Regions with at least one Discover profile, by name. */
export function listRegions(db: Db, scope: Scope, activeOnly: boolean) {
  return queryRows<RegionRow>(
    db,
    `SELECT ${REGION_COLUMNS} FROM countries c JOIN (${PROFILES}) p ON p.country_code = c.alpha_2
     WHERE ($1::text[] IS NULL OR c.alpha_2 = ANY($1::text[])) AND (NOT $2::boolean OR p.is_active)
     ORDER BY c.name`,
    [marketsParam(scope), activeOnly],
  );
}

/** The region, if it lies in the scope's markets (a region outside them reads as unknown). */
export async function getRegion(db: Db, scope: Scope, alpha2: string): Promise<RegionRow | undefined> {
  const [row] = await queryRows<RegionRow>(
    db,
    `SELECT ${REGION_COLUMNS} FROM countries c LEFT JOIN (${PROFILES}) p ON p.country_code = c.alpha_2
     WHERE c.alpha_2 = $1 AND ($2::text[] IS NULL OR c.alpha_2 = ANY($2::text[]))`,
    [alpha2, marketsParam(scope)],
  );
  return row;
}

/** Mean daily impressions over the last 7 complete UTC days before `today` (YYYY-MM-DD). */
export async function dailyImpressions(db: Db, countries: string[], today: string): Promise<Map<string, number>> {
  const rows = await queryRows<{ country: string; per_day: number }>(
    db,
    `SELECT country, round(sum(impressions) / 7.0)::float8 AS per_day FROM market_days
     WHERE country = ANY($1::text[]) AND day >= $2::date - 7 AND day < $2::date GROUP BY country`,
    [countries, today],
  );
  return new Map(rows.map((r) => [r.country, r.per_day]));
}

/** Impressions in `window` of articles mentioning the entity (kg id or normalized name), per market. */
export async function entityImpressions(db: Db, entity: string, window: Window, countries: string[]) {
  const rows = await queryRows<{ country: string; impressions: number }>(
    db,
    `SELECT o.country, sum(o.impressions)::float8 AS impressions
     FROM entities e JOIN article_entities ae ON ae.entity_id = e.id JOIN observations o ON o.url_id = ae.url_id
     WHERE (e.kg_id = $1 OR e.normalized_name = lower(trim($1))) AND o.country = ANY($2::text[])
       AND o.hour >= $3 AND o.hour < $4
     GROUP BY o.country`,
    [entity, countries, window.from.toISOString(), window.to.toISOString()],
  );
  return new Map(rows.map((r) => [r.country, r.impressions]));
}

export interface CityRow {
  id: number;
  name: string;
  is_active: boolean;
}

/** Cities of a market that host Discover profiles. */
export function listCities(db: Db, alpha2: string, activeOnly: boolean) {
  return queryRows<CityRow>(
    db,
    `SELECT ci.id, ci.name, bool_or(p.is_active) AS is_active
     FROM cities ci JOIN discover_profiles p ON p.city_id = ci.id
     WHERE ci.country_code = $1 GROUP BY ci.id, ci.name
     HAVING NOT $2::boolean OR bool_or(p.is_active) ORDER BY ci.name`,
    [alpha2, activeOnly],
  );
}

export interface ArticleTotals {
  total_articles: number;
  articles_last_24h: number;
  first_data_at: Date | null;
}

export async function articleTotals(db: Db, alpha2: string, since: Date): Promise<ArticleTotals> {
  const [row] = await queryRows<{ total_articles: number; articles_last_24h: number; first_data_at: Date | null }>(
    db,
    `SELECT (SELECT coalesce(sum(new_urls), 0) FROM market_days WHERE country = $1)::float8 AS total_articles,
            (SELECT count(*) FROM url_profiles WHERE country = $1 AND first_seen >= $2)::int AS articles_last_24h,
            (SELECT min(first_seen) FROM url_profiles WHERE country = $1) AS first_data_at`,
    [alpha2, since.toISOString()],
  );
  return row;
}

export interface LanguageRow {
  code: string;
  name: string;
  regions: string[];
  article_count: number | null;
}

export function listLanguages(db: Db, withCounts: boolean) {
  return queryRows<LanguageRow>(
    db,
    `SELECT l.code, l.name,
       coalesce((SELECT array_agg(c.alpha_2 ORDER BY c.alpha_2) FROM countries c WHERE l.code = ANY(c.languages)), '{}') AS regions,
       CASE WHEN $1::boolean THEN (SELECT coalesce(sum(new_urls), 0) FROM market_days m WHERE m.language = l.code)::float8 END AS article_count
     FROM languages l ORDER BY l.code`,
    [withCounts],
  );
}
