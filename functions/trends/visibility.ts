// What a key may see of the trends area, as SQL conditions over the parameters of its Scope
// (shared/scope.ts), so what it may not see answers like an unknown id and counts nowhere
// (docs/DECISIONS.md "Visibility is uniform"): trends by region, articles by market and by the plan's
// categories (docs/TRENDS.md "Region gate and what a key sees").
import { inPlanCategories } from '../../shared/db/plan-scope';

/**
 * Trend `t` is visible: its primary country or a code of its country_scope is one of the markets in
 * `param` (a text[] parameter; NULL = every market).
 */
export const trendVisible = (param: string, t = 't') =>
  `(${param}::text[] IS NULL OR ${t}.primary_country = ANY(${param}::text[]) OR ${t}.country_scope && ${param}::text[])`;

/**
 * Article `id` is visible: it surfaced in one of the markets (`markets`, NULL = every article) and
 * has a category under the plan's top levels (`plan`, NULL = every article).
 */
export const articleVisible = (markets: string, plan: string, id: string) =>
  `((${markets}::text[] IS NULL OR EXISTS (SELECT 1 FROM url_profiles vp WHERE vp.url_id = ${id} AND vp.country = ANY(${markets}::text[])))
    AND ${inPlanCategories(plan, id)})`;
