// Tracking's cached aggregates (metrics pages, roll-ups) on the shared single-flight module:
// cheap ones are computed inline once per identical miss, expensive ones are queued (503
// `computing` + Retry-After) and computed by the jobs consumer, which dispatches on the kind name.
import type { Context } from 'hono';
import { overBudget, type AggregateKind, type AggregateServices } from '../../shared/aggregates/kind';
import { serveAggregateResponse } from '../../shared/aggregates/serve';
import type { AuthContext } from '../../shared/auth/types';
import type { Env } from '../../shared/env';
import { resolveWindow } from '../../shared/window-scope';
import { computeMetrics } from './metrics-compute';
import { listNotFound } from './project';
import { getList, type ListRow } from './queries';
import { computeRollup } from './rollup-compute';
import { HOUR_MS, WINDOW_HOURS, type WindowName } from '../../shared/windows';

export interface AggregateRequest {
  route: 'metrics' | 'rollup';
  projectId: string;
  listId: string;
  query: Record<string, string | number | undefined>;
  auth: AuthContext;
}

/** Same question from the same scope = same key (the key itself is not part of it). */
function identity(request: AggregateRequest) {
  const { auth, ...rest } = request;
  return [rest, auth.allowedCountries, auth.historyDays];
}

/** Resolves the window with `now` and computes the body; `known` is the list the request path loaded. */
async function compute({ db, config, now }: AggregateServices, request: AggregateRequest, known?: ListRow) {
  const list = known ?? (await getList(db, request.projectId, request.listId, now));
  if (!list) throw listNotFound();
  const q = request.query as { country: string; lang: string; period: '24h' | '7d' | '30d' | 'custom'; date_from?: string; date_to?: string };
  if (request.route === 'rollup') {
    const scope = await resolveWindow(db, request.auth, now, q, 'day');
    return computeRollup(db, { list, scope, appUrl: config.APP_URL });
  }
  const grain = request.query.grain as 'hour' | 'day';
  const scope = await resolveWindow(db, request.auth, now, q, grain);
  return computeMetrics(db, { list, scope, grain, limit: Number(request.query.limit), offset: Number(request.query.offset), appUrl: config.APP_URL, now });
}

export const metricsAggregate: AggregateKind<AggregateRequest, ListRow> = { name: 'tracking.metrics', compute, identity };
export const rollupAggregate: AggregateKind<AggregateRequest, ListRow> = { name: 'tracking.rollup', compute, identity };

function estimatedCost(items: number, markets: number, period: string, from?: string, to?: string): number {
  const hours = period === 'custom' && from && to ? (Date.parse(to) - Date.parse(from)) / HOUR_MS : WINDOW_HOURS[period as WindowName] ?? WINDOW_HOURS['30d'];
  return Math.max(1, items) * Math.max(1, markets) * Math.max(1, hours);
}

export interface Admitted {
  list: ListRow;
  /** Items the request measures and markets it resolved to: its cost estimate. */
  items: number;
  markets: number;
}

/**
 * Answers a metrics/roll-up request from cache, inline (single flight), or by queueing it. The
 * admission (the list's existence and the plan's gates: one SQL round trip) runs beside the cache
 * lookup, and its errors win over a hit.
 */
export async function serveTrackingAggregate(c: Context<Env>, request: AggregateRequest, admission: Promise<Admitted>): Promise<Response> {
  const kind = request.route === 'rollup' ? rollupAggregate : metricsAggregate;
  const q = request.query;
  const options = admission.then((admitted) => {
    const cost = estimatedCost(admitted.items, admitted.markets, String(q.period), q.date_from as string, q.date_to as string);
    return { hint: admitted.list, background: overBudget(c.var.config, cost) };
  });
  return serveAggregateResponse(c, kind, request, options);
}
