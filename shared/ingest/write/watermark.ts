// The data watermark behind `Data-As-Of` (docs/DATA.md "Freshness"): when a run commits observations,
// the newest hour it carried is complete, unless that hour is still under way by the run's clock
// (the demo's live steps write the current hour every minute): then the hour before it is. The
// watermark only moves forward: late and corrected lines for older hours leave it where it is.
import type { Queryable } from '../../db/queryable';
import { HOUR_MS } from '../../time/windows';

/** The hour a run completes: its newest observation hour, at most the last hour that ended by `now`. */
export function completedHour(newest: Date, now: Date): Date {
  const lastEnded = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - HOUR_MS;
  return new Date(Math.min(newest.getTime(), lastEnded));
}

/**
 * `announce`: the push streams' change signal (shared/streams/signal.ts), told after the statement
 * committed: every path that commits observations (the CLI, the bucket queue, the demo's live steps) ends here.
 */
export async function advanceWatermark(db: Queryable, newest: Date, now: Date, announce?: () => Promise<void>): Promise<void> {
  await db.query(
    `INSERT INTO data_watermark (id, complete_hour, updated_at) VALUES (1, $1, now())
     ON CONFLICT (id) DO UPDATE SET complete_hour = excluded.complete_hour, updated_at = now()
     WHERE data_watermark.complete_hour IS NULL OR data_watermark.complete_hour < excluded.complete_hour`,
    [completedHour(newest, now).toISOString()],
  );
  await announce?.();
}
