// Buckets of a window. An hour of data belongs to a window when the hour STARTS inside [from, to);
// so bounds are first rounded up to whole hours. Day buckets are UTC calendar days, cut by the window.
export type Grain = 'hour' | 'day';

import { type SQL, sql } from 'drizzle-orm';
import { DAY_MS as DAY, HOUR_MS as HOUR } from '../time/windows';

export const ceilHour = (d: Date) => new Date(Math.ceil(d.getTime() / HOUR) * HOUR);

/** A window's bounds as SQL: whole hours (rounded up), or expressions the statement names. */
export interface SqlWindow {
  from: SQL;
  to: SQL;
}

/** The window [from, to) rounded up to whole hours, as timestamptz parameters. */
export const hourWindow = (from: Date, to: Date): SqlWindow => ({
  from: sql`${ceilHour(from).toISOString()}::timestamptz`,
  to: sql`${ceilHour(to).toISOString()}::timestamptz`,
});
const floorDay = (ms: number) => Math.floor(ms / DAY) * DAY;

export interface Bucket {
  /** Label of the bucket: its hour, or its UTC day at 00:00. */
  ts: Date;
  from: Date;
  to: Date;
  /** Whether the whole UTC day lies inside the window (read from dim_days). */
  wholeDay: boolean;
}

export function buckets(from: Date, to: Date, grain: Grain): Bucket[] {
  const start = ceilHour(from).getTime();
  const end = ceilHour(to).getTime();
  const out: Bucket[] = [];
  if (start >= end) return out;
  if (grain === 'hour') {
    for (let t = start; t < end; t += HOUR) out.push({ ts: new Date(t), from: new Date(t), to: new Date(t + HOUR), wholeDay: false });
    return out;
  }
  for (let day = floorDay(start); day < end; day += DAY) {
    const f = Math.max(day, start);
    const t = Math.min(day + DAY, end);
    out.push({ ts: new Date(day), from: new Date(f), to: new Date(t), wholeDay: f === day && t === day + DAY });
  }
  return out;
}
