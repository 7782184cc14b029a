// Turns feed/live query values into a FeedFilter within the caller's scope: markets (403 outside the
// key's), `;`-separated categories (422 malformed, 403 outside the plan) and entities, the period.
import type { AuthContext } from '../../shared/auth/types';
import { CATEGORY_PATH } from '../../shared/schemas/categories';
import { badRequest, invalid } from '../../shared/http/errors';
import { assertCategoriesInPlan } from '../../shared/limits/gates';
import { capList } from '../../shared/scope/list-caps';
import { scopeOf, withCountry } from '../../shared/scope/scope';
import type { FeedFilter } from './queries';
import { SORT_KEYS, type SortKey } from './schemas';
import { DAY_MS, windowMs } from '../../shared/time/windows';
import type { WindowName as FeedWindow } from '../../shared/feed/windows';

/** `a; b;;c` -> `['a', 'b', 'c']` (trimmed, empty parts and repeats dropped); undefined stays null. */
function splitList(raw: string | undefined, name: string): string[] | null {
  if (raw === undefined) return null;
  const parts = [
    ...new Set(
      raw
        .split(';')
        .map((p) => p.trim())
        .filter(Boolean),
    ),
  ];
  if (parts.length === 0) throw invalid(['query', name], `Expected one or more values separated by ';'`);
  return capList(parts, name);
}

export interface CommonQuery {
  country: string;
  lang: string;
  category?: string;
  entity?: string;
  match: 'any' | 'all';
}

/** What a feed read selects, whatever its "now": markets, language, categories and entities, checked. */
export type FeedSelection = Omit<FeedFilter, 'seenAfter' | 'seenBefore' | 'firstSeenFrom'>;

/** Checks the common query (422 malformed, 403 outside the key's markets or the plan) before any cache or data is read. */
export function parseSelection(auth: AuthContext, q: CommonQuery): FeedSelection {
  const categories = splitList(q.category, 'category');
  const bad = categories?.find((p) => !CATEGORY_PATH.test(p));
  if (bad !== undefined)
    throw invalid(
      ['query', 'category'],
      `Expected taxonomy paths like /Sports/Soccer separated by ';', got '${bad}'`,
      'string_pattern_mismatch',
    );
  if (categories) assertCategoriesInPlan(auth, categories);
  const lang = q.lang.toLowerCase();
  return {
    scope: withCountry(scopeOf(auth), q.country),
    language: lang === 'all' ? null : lang,
    categories,
    entities: splitList(q.entity, 'entity'),
    matchAll: q.match === 'all',
  };
}

/** The filter every feed read shares at `now`; `seenAfter` starts at the plan's history. */
export function baseFilter(auth: AuthContext, selection: FeedSelection, now: Date): FeedFilter {
  return { ...selection, seenAfter: new Date(now.getTime() - auth.historyDays * DAY_MS), seenBefore: null, firstSeenFrom: null };
}

export interface PeriodQuery {
  period?: FeedWindow | 'custom';
  date_from?: string;
  date_to?: string;
}

/** The start the request asks for: now minus a non-custom period, else date_from (null: none). */
const requestedStart = (q: PeriodQuery, now: Date): Date | null =>
  q.period && q.period !== 'custom' ? new Date(now.getTime() - windowMs(q.period)) : q.date_from ? new Date(q.date_from) : null;

/** Whether that start lay before the plan's history and was moved forward (the spec's `history_clamped`). */
export const historyClamped = (auth: AuthContext, q: PeriodQuery, now: Date): boolean =>
  (requestedStart(q, now)?.getTime() ?? Infinity) < now.getTime() - auth.historyDays * DAY_MS;

/** The window asked for: a named period (ending at "now", date_to ignored), or date_from/date_to. */
export type RequestedPeriod = { window: FeedWindow; from: null; to: null } | { window: null; from: Date | null; to: Date | null };

/** Checks period/date_from/date_to (422: `custom` without both dates, date_to not after date_from). */
export function parsePeriod(q: PeriodQuery): RequestedPeriod {
  if (q.period && q.period !== 'custom') return { window: q.period, from: null, to: null };
  const from = q.date_from ? new Date(q.date_from) : null;
  const to = q.date_to ? new Date(q.date_to) : null;
  if (q.period === 'custom' && (!from || !to)) {
    throw invalid(['query', from ? 'date_to' : 'date_from'], 'period=custom needs both date_from and date_to', 'missing');
  }
  if (from && to && to <= from) throw invalid(['query', 'date_to'], 'date_to must be after date_from');
  return { window: null, from, to };
}

/** Applies the checked period at `now`; the history start is a floor. */
export function applyPeriod(filter: FeedFilter, period: RequestedPeriod, now: Date): FeedFilter {
  const from = period.window ? new Date(now.getTime() - windowMs(period.window)) : period.from;
  const floor = filter.seenAfter!;
  return { ...filter, seenAfter: from && from > floor ? from : floor, seenBefore: period.to };
}

/** sort_by: unknown values are 400 (the spec's example of a present but unusable parameter). */
export function resolveSort(sortBy: string | undefined, period: string | undefined): SortKey {
  if (sortBy === undefined) return period ? 'derived' : 'impressions_24h';
  if (!(SORT_KEYS as readonly string[]).includes(sortBy)) {
    throw badRequest(`Unknown sort_by '${sortBy}'. Use one of: ${SORT_KEYS.join(', ')}.`);
  }
  return sortBy as SortKey;
}
