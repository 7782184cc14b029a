// Trend forecast from the trend's own daily impressions (docs/TRACKING.md "Forecast"): a damped
// exponential trend. Least squares of log(1 + impressions) on the day index over the last 14 full
// days gives a daily rate; the rate is capped (at most doubling or halving a day) and damped day by
// day, and the level starts no higher than the observed peak, so every figure is finite and bounded
// by the data (at most 16x the peak a day). No randomness: the same series gives the same forecast.
import { iso, round } from '../../shared/format';
import { DAY_MS as DAY } from '../../shared/time/windows';

export interface Forecast {
  pct_next24h: number;
  pct_next7d: number;
  pct_next30d: number;
  predicted_total_reach: number;
  predicted_end_at: string;
  confidence: number;
}

/** Day-over-day damping of the rate: the cumulative growth factor is at most exp(MAX_RATE * PHI / (1 - PHI)). */
export const PHI = 0.8;
/** The fitted rate is capped to +-ln 2 a day (doubling or halving), whatever the last days did. */
export const MAX_RATE = Math.LN2;
/** Horizon of the forecast, and the latest `predicted_end_at` (a year out). */
const HORIZON = 30;
const MAX_END_DAYS = 365;

// `+ 0`: a flat forecast is 0, not -0.
const pct = (next: number, last: number) => (last > 0 ? round(((next - last) / last) * 100, 1) + 0 : next > 0 ? 100 : 0);
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** Log-linear least squares: rate (per day), the fitted log level at the last day, residual RMS. */
function fitGrowth(daily: number[]) {
  const n = daily.length;
  const y = daily.map((v) => Math.log1p(v));
  const meanX = (n - 1) / 2;
  const meanY = sum(y) / n;
  let sxy = 0;
  let sxx = 0;
  for (let x = 0; x < n; x++) {
    sxy += (x - meanX) * (y[x] - meanY);
    sxx += (x - meanX) ** 2;
  }
  const rate = sxx > 0 ? sxy / sxx : 0;
  const at = (x: number) => meanY + rate * (x - meanX);
  const rms = n > 0 ? Math.sqrt(sum(y.map((v, x) => (v - at(x)) ** 2)) / n) : 0;
  return { rate, lastLog: at(n - 1), rms };
}

/** `daily`: oldest first, the last entry being yesterday; `reachSoFar`: impressions to date. */
export function forecastTrend(daily: number[], reachSoFar: number, today: Date): Forecast {
  const n = daily.length;
  const peak = Math.max(0, ...daily);
  const { rate: fitted, lastLog, rms } = fitGrowth(daily);
  const rate = Math.max(-MAX_RATE, Math.min(MAX_RATE, fitted));
  // Start from the fitted level of the last day, never above the observed peak.
  const level = Math.min(Math.expm1(lastLog), peak);
  // Damped trend: day h ahead grows by rate * (PHI + PHI^2 + ... + PHI^h).
  const ahead = (days: number) =>
    Array.from({ length: days }, (_, i) => Math.max(0, level * Math.exp((rate * PHI * (1 - PHI ** (i + 1))) / (1 - PHI))));
  const next = ahead(HORIZON);

  // A decaying trend ends when its (undamped) rate brings the level under 1% of the peak.
  let endInDays = HORIZON;
  if (rate < 0 && level > 0) {
    const floor = Math.max(1, peak * 0.01);
    endInDays = level <= floor ? 1 : Math.min(MAX_END_DAYS, Math.ceil(Math.log(floor / level) / rate));
  }
  // Fit quality (exp(-RMS) of the log residuals: 1 for an exact fit, 0.37 when the typical day is
  // off by a factor e) times history length (active days among the window's days).
  const activeDays = daily.filter((v) => v > 0).length;
  const confidence = n > 0 ? Math.exp(-rms) * (activeDays / n) : 0;
  return {
    pct_next24h: pct(next[0], daily[n - 1] ?? 0),
    pct_next7d: pct(sum(next.slice(0, 7)), sum(daily.slice(-7))),
    pct_next30d: pct(sum(next), sum(daily.slice(-14)) * (HORIZON / 14)),
    predicted_total_reach: Math.round(reachSoFar + sum(next)),
    predicted_end_at: iso(new Date(today.getTime() + endInDays * DAY)),
    confidence: round(confidence, 3),
  };
}
