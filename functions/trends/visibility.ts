// What a key may see of the trends area, as SQL conditions over its Scope (shared/scope/scope.ts), so what it
// may not see answers like an unknown id and counts nowhere (docs/DECISIONS.md "Visibility is uniform"):
// trends by region, articles by market and by the plan's categories (docs/TRENDS.md "Region gate and what a key sees").
import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { inPlan } from '../../shared/db/article-filters';
import { urlProfiles } from '../../shared/db/schema/content';
import { categoriesParam, marketsParam, type Scope } from '../../shared/scope/scope';

/** The region columns of a trend row (trends, or an alias of it). */
export type TrendRegion = Record<'primaryCountry' | 'countryScope', SQLWrapper>;

/** Trend `t` is visible: its primary country or a code of its country_scope is one of the scope's markets (or every market). */
export function trendVisible(scope: Scope, t: TrendRegion): SQL {
  const markets = sql.param(marketsParam(scope));
  return sql`(${markets}::text[] IS NULL OR ${t.primaryCountry} = ANY(${markets}::text[]) OR ${t.countryScope} && ${markets}::text[])`;
}

const vp = alias(urlProfiles, 'vp');

/**
 * Article `id` is visible: it surfaced in one of the scope's markets (every article for every market)
 * and has a category under the plan's top levels (every article for every category).
 */
export function articleVisible(scope: Scope, id: SQLWrapper): SQL {
  const markets = sql.param(marketsParam(scope));
  return sql`((${markets}::text[] IS NULL OR EXISTS (SELECT 1 FROM ${urlProfiles} ${vp} WHERE ${vp.urlId} = ${id} AND ${vp.country} = ANY(${markets}::text[])))
    AND ${inPlan(categoriesParam(scope), id)})`;
}
