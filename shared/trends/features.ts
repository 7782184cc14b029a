// Trend numbers derived from the daily article series (docs/TRENDS.md is the definition): the
// 180-day sparkline, the model features and the lifecycle rule the generator applies. Pure
// functions: the API (functions/trends) and the generator (scripts/generate) share them.
import type { TrendState } from '../db/schema/trends';
import { DAY_MS } from '../time/windows';

/** `YYYY-MM-DD` -> days since 1970-01-01 (UTC). */
export const dayNumber = (day: string) => Math.floor(Date.parse(`${day.slice(0, 10)}T00:00:00Z`) / DAY_MS);
/** The UTC day of an instant, `YYYY-MM-DD`. */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10);

export interface DayCount {
  /** UTC day `YYYY-MM-DD` of the articles' first_seen_at. */
  day: string;
  articles: number;
}

export interface SeriesInput {
  days: DayCount[];
  /** The clock's UTC day: the last day of every window. */
  today: string;
  /** Assignments of the trend (equals the sum of `days`). */
  totalArticles: number;
  /** Assigned articles first seen less than 48 hours after the trend's first article. */
  first48h: number;
}

export interface TrendFeatures {
  days_active: number;
  total_articles: number;
  slope_14d: number;
  cv_30d: number;
  current_share_7d: number;
  peak_day_ago: number | null;
  first_48h_share: number;
  acf_30: number;
  acf_90: number;
  acf_365: number | null;
}

/** Counts of the `n` UTC days ending `today` (oldest first), zero-filled. */
export function dailyCounts(days: DayCount[], today: string, n: number): number[] {
  const end = dayNumber(today);
  const out = new Array<number>(n).fill(0);
  for (const d of days) {
    const i = n - 1 - (end - dayNumber(d.day));
    if (i >= 0 && i < n) out[i] += d.articles;
  }
  return out;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]) => (xs.length ? sum(xs) / xs.length : 0);
/** Four decimals: enough for every ratio here, and stable in JSON. */
const r4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** Least-squares slope of ys against x = 0..n-1 (articles per day per day). */
export function slope(ys: number[]): number {
  const mx = (ys.length - 1) / 2;
  const my = mean(ys);
  let num = 0;
  let den = 0;
  ys.forEach((y, x) => {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  });
  return den ? num / den : 0;
}

/** Population standard deviation over mean; 0 for an all-zero window. */
export function cv(ys: number[]): number {
  const m = mean(ys);
  return m ? Math.sqrt(mean(ys.map((y) => (y - m) ** 2))) / m : 0;
}

/**
 * Sample autocorrelation at `lag` (the standard biased estimator: lagged cross products over the
 * total sum of squares). Null when the series is shorter than 2 x lag: fewer than `lag` pairs make it
 * noise. A constant series has no variance to explain: 0.
 */
export function acf(xs: number[], lag: number): number | null {
  if (xs.length < 2 * lag) return null;
  const m = mean(xs);
  let num = 0;
  let den = 0;
  xs.forEach((x, i) => {
    den += (x - m) ** 2;
    if (i >= lag) num += (x - m) * (xs[i - lag]! - m);
  });
  return den ? num / den : 0;
}

/** The busiest day, latest on ties (as ingest stores `peak_date`). */
export function peakDay(days: DayCount[]): string | null {
  let best: DayCount | null = null;
  for (const d of days) {
    if (d.articles <= 0) continue;
    if (!best || d.articles > best.articles || (d.articles === best.articles && d.day > best.day)) best = d;
  }
  return best?.day ?? null;
}

export function computeFeatures(input: SeriesInput): TrendFeatures {
  const { days, today, totalArticles: total } = input;
  const active = days.filter((d) => d.articles > 0);
  const end = dayNumber(today);
  const first = active.length ? Math.min(...active.map((d) => dayNumber(d.day))) : null;
  // The whole history, first day to today, for the yearly autocorrelation.
  const history = first === null || first > end ? [] : dailyCounts(active, today, end - first + 1);
  const last = (n: number) => dailyCounts(active, today, n);
  const peak = peakDay(active);
  return {
    days_active: active.length,
    total_articles: total,
    slope_14d: r4(slope(last(14))),
    cv_30d: r4(cv(last(30))),
    current_share_7d: total ? r4(sum(last(7)) / total) : 0,
    peak_day_ago: peak === null ? null : end - dayNumber(peak),
    first_48h_share: total ? r4(input.first48h / total) : 0,
    // Over the 180-day zero-filled series the detail shows as `daily_counts_180d`: always defined.
    acf_30: r4(acf(last(180), 30)!),
    acf_90: r4(acf(last(180), 90)!),
    acf_365: nullableR4(acf(history, 365)),
  };
}

const nullableR4 = (x: number | null) => (x === null ? null : r4(x));

/**
 * The lifecycle rule (docs/TRENDS.md "Lifecycle state"), first match wins. `ageDays` is today minus
 * the trend's first day. The generator assigns `state` with it, so demo data agrees with the features.
 */
export function lifecycleState(f: TrendFeatures, structuralType: string, ageDays: number): TrendState {
  if (f.total_articles === 0 || f.peak_day_ago === null) return 'emerging';
  if (f.current_share_7d < 0.15 && f.peak_day_ago >= 7) return structuralType === 'cyclic' ? 'seasonal_dormant' : 'decayed';
  // Long-lived, still active, and not front-loaded: robust to the day-to-day noise of small trends.
  if (ageDays >= 14 && f.current_share_7d >= 0.1 && f.first_48h_share < 0.25) return 'persistent';
  if (ageDays <= 3 && f.slope_14d > 0) return 'emerging';
  if (f.peak_day_ago <= 3 || f.current_share_7d >= 0.3) return 'hot';
  return 'decayed';
}
