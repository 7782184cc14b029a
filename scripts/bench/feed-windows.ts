// The feed windows of a loaded benchmark database, brought to the data's "now" before a bench reads the feed.
import type pg from 'pg';
import { slideWindowsWith, windowEnd } from '../../shared/feed/windows';

/**
 * Brings the feed windows to the data's "now", as the jobs cron keeps them in production: a full build
 * on a database bulk-loaded without them (the whole bench set: longer than a request's statement
 * timeout), nothing when they are current. Returns the seconds it took.
 */
export async function feedWindowsCurrent(client: pg.Client, now: Date): Promise<number> {
  const started = performance.now();
  await client.query(`SET work_mem = '256MB'`);
  await slideWindowsWith(client, windowEnd(now));
  await client.query('RESET work_mem');
  await client.query('ANALYZE profile_windows');
  return (performance.now() - started) / 1000;
}
