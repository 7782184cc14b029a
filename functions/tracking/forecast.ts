// Trend forecast from the trend's own daily impressions (docs/TRACKING.md "Forecast"):
// least squares of log(1 + impressions) on the day index over the last 14 full days, i.e. an
// exponential growth or decay rate. No randomness: the same series always gives the same forecast.
import { iso, round } from '../../shared/format';

export interface Forecast {
  pct_next24h: number;
  pct_next7d: number;
  pct_next30d: number;
  predicted_total_reach: number;
  predicted_end_at: string;
  confidence: number;
}

const DAY = 86_400_000;
const pct = (next: number, last: number) => (last > 0 ? round(((next - last) / last) * 100, 1) : next > 0 ? 100 : 0);
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** `daily`: oldest first, the last entry being yesterday; `reachSoFar`: impressions to date. */
export function forecastTrend(daily: number[], reachSoFar: number, today: Date): Forecast {
  const n = daily.length;
  const y = daily.map((v) => Math.log1p(v));
  const meanX = (n - 1) / 2;
  const meanY = sum(y) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let x = 0; x < n; x++) {
    sxy += (x - meanX) * (y[x] - meanY);
    sxx += (x - meanX) ** 2;
    syy += (y[x] - meanY) ** 2;
  }
  const slope = sxx > 0 ? sxy / sxx : 0;
  const intercept = meanY - slope * meanX;
  const predict = (x: number) => Math.max(0, Math.expm1(intercept + slope * x));
  const ahead = (days: number) => Array.from({ length: days }, (_, i) => predict(n + i));
  const r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 0;
  const activeDays = daily.filter((v) => v > 0).length;

  const peak = Math.max(...daily, 0);
  let endInDays = 30;
  if (slope < 0) {
    const floor = Math.max(1, peak * 0.01);
    const k = ahead(365).findIndex((v) => v < floor);
    endInDays = k === -1 ? 365 : k;
  }
  return {
    pct_next24h: pct(predict(n), daily[n - 1] ?? 0),
    pct_next7d: pct(sum(ahead(7)), sum(daily.slice(-7))),
    pct_next30d: pct(sum(ahead(30)), sum(daily.slice(-14)) * (30 / 14)),
    predicted_total_reach: Math.round(reachSoFar + sum(ahead(30))),
    predicted_end_at: iso(new Date(today.getTime() + endInDays * DAY)),
    confidence: round(Math.min(1, r2) * Math.min(1, activeDays / 7), 3),
  };
}
