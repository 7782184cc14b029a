// Time: the units, the spec's named windows (UTC, half-open [from, to), the previous window of the
// same length right before) and the periods built from them. Every length in the code comes from here.
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** Every named window and period of the spec, in hours. */
export const WINDOW_HOURS = { '1h': 1, '6h': 6, '24h': 24, '7d': 168, '30d': 720 } as const;
export type WindowName = keyof typeof WINDOW_HOURS;

/** The length of a named window. */
export const windowMs = (name: WindowName) => WINDOW_HOURS[name] * HOUR_MS;

/** The hours of a requested window: `custom` from its dates, a named period as named; anything else (no dates) as 30 days. */
export function windowHours(period: string, from?: string, to?: string): number {
  if (period === 'custom' && from && to) return (Date.parse(to) - Date.parse(from)) / HOUR_MS;
  return isWindowName(period) ? WINDOW_HOURS[period] : WINDOW_HOURS['30d'];
}

const isWindowName = (name: string): name is WindowName => Object.hasOwn(WINDOW_HOURS, name);

export interface Window {
  from: Date;
  to: Date;
}

/** The window of `name` ending at `now`. */
export function windowEndingAt(now: Date, name: WindowName): Window {
  return { from: new Date(now.getTime() - windowMs(name)), to: new Date(now) };
}
