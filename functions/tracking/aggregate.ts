// Tracking's cached aggregates (metrics pages, roll-ups) on the shared single-flight module:
// cheap ones are computed inline once per identical miss, expensive ones are queued (503
// `computing` + Retry-After) and computed by the jobs consumer, which dispatches on the kind name.
import type { Context } from 'hono';
import { inlineCost, overBudget, type AggregateKind, type AggregateServices } from '../../shared/aggregates/kind';
import { serveAggregateResponse } from '../../shared/aggregates/serve';
import type { AuthContext } from '../../shared/auth/types';
import type { JsonAnswer } from '../../shared/cache/response';
import type { Env } from '../../shared/env';
import { resolveWindow, type WindowParams } from '../../shared/scope/window-scope';
import { computeMetrics } from './metrics-compute';
import { listNotFound } from './project';
import { getList, type ListRow } from './queries';
import { computeRollup } from './rollup-compute';
import { windowHours } from '../../shared/time/windows';
import { aggregateKinds } from '../../shared/cache/namespaces';

/** A metrics page or roll-up of one list, as its route validated it (plain JSON: queued jobs carry it). */
export interface AggregateRequest<Q extends WindowParams = WindowParams> {
  route: 'metrics' | 'rollup';
  projectId: string;
  listId: string;
  query: Q;
  auth: AuthContext;
}

/** The metrics page's parameters besides the window. */
export type MetricsParams = WindowParams & { grain: 'hour' | 'day'; limit: number; offset: number };

/** Same question from the same scope = same key (the key itself is not part of it). */
function identity(request: AggregateRequest) {
  const { auth, ...rest } = request;
  return [rest, auth.allowedCountries, auth.historyDays];
}

/** The list the request path loaded (`known`), or the list as it is now (the consumer runs later). */
async function listOf(db: AggregateServices['db'], request: AggregateRequest, now: Date, known?: ListRow): Promise<ListRow> {
  const list = known ?? (await getList(db, request.projectId, request.listId, now));
  if (!list) throw listNotFound();
  return list;
}

/** Resolves the window with `now` and computes the metrics page. */
async function computeMetricsPage({ db, config, now }: AggregateServices, request: AggregateRequest<MetricsParams>, known?: ListRow) {
  const list = await listOf(db, request, now, known);
  const { grain, limit, offset } = request.query;
  const scope = await resolveWindow(db, request.auth, now, request.query, grain);
  return computeMetrics(db, { list, scope, grain, limit: Number(limit), offset: Number(offset), appUrl: config.APP_URL, now });
}

/** Resolves the window (day grain) with `now` and computes the roll-up. */
async function computeListRollup({ db, config, now }: AggregateServices, request: AggregateRequest, known?: ListRow) {
  const list = await listOf(db, request, now, known);
  const scope = await resolveWindow(db, request.auth, now, request.query, 'day');
  return computeRollup(db, { list, scope, appUrl: config.APP_URL });
}

export const metricsAggregate = {
  name: aggregateKinds.trackingMetrics.name,
  compute: computeMetricsPage,
  identity,
} satisfies AggregateKind<AggregateRequest<MetricsParams>, ListRow>;
export const rollupAggregate = { name: aggregateKinds.trackingRollup.name, compute: computeListRollup, identity } satisfies AggregateKind<
  AggregateRequest,
  ListRow
>;

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
export async function serveTrackingAggregate<Q extends WindowParams, V>(
  c: Context<Env>,
  kind: AggregateKind<AggregateRequest<Q>, ListRow, V>,
  request: AggregateRequest<Q>,
  admission: Promise<Admitted>,
): Promise<JsonAnswer<V>> {
  const q = request.query;
  const options = admission.then((admitted) => {
    const cost = inlineCost(admitted.items, admitted.markets, windowHours(q.period, q.date_from, q.date_to));
    return { hint: admitted.list, background: overBudget(c.var.config, cost) };
  });
  return serveAggregateResponse(c, kind, request, options);
}
