// The trend roll-up as a shared single-flight aggregate (shared/aggregates/): cached, computed
// once per identical miss, and queued (503 `computing` + Retry-After) when the trend is big.
import type { Context } from 'hono';
import { inlineCost, overBudget, type AggregateKind, type AggregateServices } from '../../shared/aggregates/kind';
import { serveAggregate } from '../../shared/aggregates/serve';
import type { AuthContext } from '../../shared/auth/types';
import type { Env } from '../../shared/env';
import { resolveWindow } from '../../shared/scope/window-scope';
import { trendNotFound } from './not-found';
import { isTrendVisible } from './queries';
import { computeTrendRollup } from './rollup-compute';
import { scopeOf } from '../../shared/scope/scope';
import { windowHours } from '../../shared/time/windows';
import { aggregateKinds } from '../../shared/cache/namespaces';

export interface TrendRollupRequest {
  trendId: string;
  query: { country: string; lang: string; period: '24h' | '7d' | '30d' | 'custom'; date_from?: string; date_to?: string };
  auth: AuthContext;
}

/** `admitted`: the request path found the trend visible just now (the consumer runs later and looks again). */
async function compute({ db, config, now }: AggregateServices, request: TrendRollupRequest, admitted?: true) {
  // The consumer runs later: the trend may have left the key's scope or been deleted since.
  if (!admitted && !(await isTrendVisible(db, scopeOf(request.auth), request.trendId))) throw trendNotFound(request.trendId);
  const scope = await resolveWindow(db, request.auth, now, request.query, 'day');
  return computeTrendRollup(db, { trendId: request.trendId, scope, appUrl: config.APP_URL });
}

export const trendRollupAggregate = {
  name: aggregateKinds.trendRollup.name,
  compute,
  // Everything that scopes the answer: the question, the project (two projects of the same scope never
  // share an entry: docs/SECURITY.md "Tenants"), the markets, the history and the plan's categories.
  identity: ({ auth, ...rest }: TrendRollupRequest) => [rest, auth.projectId, auth.allowedCountries, auth.historyDays, auth.categories],
} satisfies AggregateKind<TrendRollupRequest, true>;

/**
 * What one article-market-hour of a trend roll-up is worth in the budget's unit (shared/aggregates/kind.ts
 * `inlineCost`): a 24th of a list item's. The roll-up reads each article's own observations by index range
 * (rollup-compute.ts), where a list item (an entity, a category, a publisher) stands for every article
 * under it. With it, and windows under a day counted as a day, the budget decides as it did when trend
 * roll-ups were counted in article-market-days (docs/TRENDS.md).
 */
export const TREND_ARTICLE_WEIGHT = 1 / 24;
const DAY_HOURS = 24;

export function estimatedCost(articles: number, markets: number, query: TrendRollupRequest['query']): number {
  const hours = Math.max(DAY_HOURS, windowHours(query.period, query.date_from, query.date_to));
  return inlineCost(articles, markets, hours, TREND_ARTICLE_WEIGHT);
}

/** What the request path admitted: the trend's size and the markets of the window. */
export interface TrendAdmission {
  articles: number;
  markets: number;
}

/** The roll-up; the cache lookup runs beside `admission` (its errors win over a hit). */
export async function serveTrendRollup(c: Context<Env>, request: TrendRollupRequest, admission: Promise<TrendAdmission>) {
  const options = admission.then(({ articles, markets }) => ({
    background: overBudget(c.var.config, estimatedCost(articles, markets, request.query)),
    hint: true as const,
  }));
  return serveAggregate(c, trendRollupAggregate, request, options);
}
