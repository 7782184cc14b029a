// The trend roll-up as a shared single-flight aggregate (shared/aggregates/): cached, computed
// once per identical miss, and queued (503 `computing` + Retry-After) when the trend is big.
import type { Context } from 'hono';
import { overBudget, type AggregateKind, type AggregateServices } from '../../shared/aggregates/kind';
import { serveAggregate } from '../../shared/aggregates/serve';
import type { AuthContext } from '../../shared/auth/types';
import type { Env } from '../../shared/env';
import { resolveWindow } from '../../shared/window-scope';
import { trendNotFound } from './not-found';
import { isTrendVisible } from './queries';
import { computeTrendRollup } from './rollup-compute';
import { scopeOf } from '../../shared/scope';
import { DAY_MS, WINDOW_HOURS } from '../../shared/windows';

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

export const trendRollupAggregate: AggregateKind<TrendRollupRequest, true> = {
  name: 'trends.rollup',
  compute,
  // Everything that scopes the answer: the question, the project (issue 19: never shared across
  // projects), the markets, the history and the plan's categories.
  identity: ({ auth, ...rest }) => [rest, auth.projectId, auth.allowedCountries, auth.historyDays, auth.categories],
};

export function estimatedCost(articles: number, markets: number, query: TrendRollupRequest['query']): number {
  const days = query.period === 'custom' && query.date_from && query.date_to
    ? (Date.parse(query.date_to) - Date.parse(query.date_from)) / DAY_MS
    : (query.period === 'custom' ? WINDOW_HOURS['30d'] : WINDOW_HOURS[query.period]) / 24;
  return Math.max(1, articles) * Math.max(1, markets) * Math.max(1, days);
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
