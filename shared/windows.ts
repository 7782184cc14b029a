// Time windows: UTC, half-open [from, to), previous window of the same length right before.
export const WINDOW_HOURS = { '1h': 1, '6h': 6, '24h': 24, '7d': 168, '30d': 720 } as const;
export type WindowName = keyof typeof WINDOW_HOURS;

const HOUR_MS = 3_600_000;

export interface Window {
  from: Date;
  to: Date;
}

/** The window of `name` ending at `now`. */
export function windowEndingAt(now: Date, name: WindowName): Window {
  return { from: new Date(now.getTime() - WINDOW_HOURS[name] * HOUR_MS), to: new Date(now) };
}

