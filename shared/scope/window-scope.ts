// The window of a metrics, roll-up or analytics request (the answer's `scope`; docs/TRACKING.md "Windows and scope"):
// markets, language, the window and the previous window of the same shape right before it. Shared by tracking and articles.
import { z } from '@hono/zod-openapi';
import type { AuthContext } from '../auth/types';
import { isoQueryParam } from '../time/dates';
import type { Db } from '../db/client';
import { invalid } from '../http/errors';
import { iso } from '../format';
import { clampToHistory } from '../limits/gates';
import { ceilHour, type Grain } from '../rollups/buckets';
import { marketList, resolveMarkets, scopeOf, type ListedScope } from './scope';
import { DAY_MS as DAY, WINDOW_HOURS, type WindowName } from '../time/windows';

/** The periods of the windowed reads (tracking metrics and roll-ups, category analytics). */
const PERIODS = ['24h', '7d', '30d'] as const satisfies readonly WindowName[];

export const WindowQuery = {
  country: z
    .string()
    .regex(/^([A-Za-z]{2}|all)$/, 'Expected an ISO 3166-1 alpha-2 code or `all`')
    .default('all')
    .openapi({ description: 'Country code or `all` (every entitled market, resolved in `scope.markets`).', example: 'all' }),
  lang: z
    .string()
    .regex(/^([A-Za-z]{2}|all)$/, 'Expected an ISO 639-1 code or `all`')
    .default('all')
    .openapi({ description: 'Language code or `all`.', example: 'all' }),
  period: z
    .enum([...PERIODS, 'custom'])
    .default('7d')
    .openapi({ description: 'Window ending now; `custom` needs `date_from` and `date_to`.' }),
  date_from: isoQueryParam(
    "Start (UTC), required with `period=custom`; moved forward to the plan's history when earlier (`scope.clamped`). A window wholly before the history is not refused: it answers the empty window at the history's start (`scope.from` = `scope.to`, every count 0, `scope.clamped` true).",
    '2026-11-01T00:00:00Z',
  ),
  date_to: isoQueryParam('End (UTC, exclusive), required with `period=custom`.', '2026-11-08T00:00:00Z'),
};

/** A windowed read's parameters: the key's scope resolved to `country`, the language and both windows. */
export interface AggregateWindow {
  /** As requested: `all` or an upper-case country code. */
  country: string;
  /** The key's scope, its markets resolved to `country` (the markets measured). */
  keyScope: ListedScope;
  lang: string;
  language: string | null;
  from: Date;
  to: Date;
  prevFrom: Date;
  prevTo: Date;
  historyDays: number;
  clamped: boolean;
}

export interface WindowParams {
  country: string;
  lang: string;
  period: 'custom' | (typeof PERIODS)[number];
  date_from?: string;
  date_to?: string;
}

/**
 * The window `[from, to)` within the plan's history (spec: an earlier start is moved forward, and
 * reported). A window wholly before the history becomes the empty window at the history's start
 * (`from = to =` that instant, `clamped: true`): nothing of it lies inside the plan, so every count is 0
 * and the previous window, of the same (zero) length, is empty too. Never `from` after `to`.
 */
export function historyWindow(auth: AuthContext, from: Date, to: Date, now: Date) {
  const clamp = clampToHistory(auth, from, now);
  return { ...clamp, to: to < clamp.from ? clamp.from : to };
}

/**
 * Default periods end now and snap to the grain: day grain covers N UTC days (today partial), hour
 * grain N x 24 hours (the current hour partial). The previous window is the same shape, shifted back.
 */
export async function resolveWindow(db: Db, auth: AuthContext, now: Date, params: WindowParams, grain: Grain): Promise<AggregateWindow> {
  let from: Date;
  let to: Date;
  if (params.period === 'custom') {
    if (!params.date_from || !params.date_to) {
      const missing = params.date_from ? 'date_to' : 'date_from';
      throw invalid(['query', missing], 'period=custom needs both date_from and date_to', 'missing');
    }
    from = new Date(params.date_from);
    to = new Date(params.date_to);
    if (to <= from) throw invalid(['query', 'date_to'], 'date_to must be after date_from');
  } else {
    const days = WINDOW_HOURS[params.period] / 24;
    to = now;
    const end = ceilHour(now).getTime();
    from = grain === 'day' ? new Date(Math.floor((end - 1) / DAY) * DAY - (days - 1) * DAY) : new Date(end - days * DAY);
  }
  const clamp = historyWindow(auth, from, to, now);
  const length = clamp.to.getTime() - clamp.from.getTime();
  const markets = await resolveMarkets(db, scopeOf(auth), params.country);
  return {
    country: markets.country,
    keyScope: markets.scope,
    lang: params.lang.toLowerCase(),
    language: params.lang.toLowerCase() === 'all' ? null : params.lang.toLowerCase(),
    from: clamp.from,
    to: clamp.to,
    prevFrom: new Date(clamp.from.getTime() - length),
    prevTo: clamp.from,
    historyDays: clamp.historyDays,
    clamped: clamp.clamped,
  };
}

export function scopeBody(scope: AggregateWindow, extra: Record<string, unknown> = {}) {
  return {
    country: scope.country === 'all' ? 'all' : scope.country,
    markets: marketList(scope.keyScope).map((m) => m.toLowerCase()),
    lang: scope.lang,
    from: iso(scope.from),
    to: iso(scope.to),
    ...extra,
    prev_from: iso(scope.prevFrom),
    prev_to: iso(scope.prevTo),
    history_days: scope.historyDays,
    clamped: scope.clamped,
  };
}

const stamp = z.string().openapi({ example: '2026-11-20T00:00:00+00:00' });

/** The `scope` object of scopeBody() for day-grain aggregates outside tracking (e.g. the trend roll-up). */
export const WindowScopeSchema = z
  .object({
    country: z.string().openapi({ description: 'As requested: `all` or a country code.', example: 'all' }),
    markets: z.array(z.string()).openapi({ description: 'Resolved markets, lower-case.', example: ['gb', 'us'] }),
    lang: z.string().openapi({ example: 'all' }),
    from: stamp,
    to: stamp,
    prev_from: stamp,
    prev_to: stamp,
    history_days: z.number().int().openapi({ description: 'History depth of the plan.', example: 365 }),
    clamped: z.boolean().openapi({
      description:
        'The requested start was moved forward to the plan history (a window wholly before it becomes the empty window at its start).',
    }),
  })
  .openapi('WindowScope');
