// Ingest's side of the feed windows (windows.ts, docs/DATA.md "Feed windows"): a batch recomputes the
// profiles it touched at the current as_of, and a bulk load leaves every profile to the next slide.
import type { Queryable } from '../db/queryable';
import { BUMP_VERSION, RECOMPUTE } from './windows';

const SHARE_STATE = `SELECT 1 FROM feed_windows_state WHERE id = 1 FOR SHARE`;

/** Ingest: the batch's touched profiles at the current as_of; the share lock orders it with a slide. */
const REFRESH_PROFILES = `
WITH s AS (SELECT as_of FROM feed_windows_state WHERE id = 1 FOR SHARE),
${RECOMPUTE(`SELECT DISTINCT * FROM unnest($1::uuid[], $2::text[], $3::text[]) AS k(url_id, country, language)`)}`;

/** Ingest: recomputes the windows of the profiles a batch changed (inside the batch's transaction). */
export async function refreshProfileWindows(db: Queryable, keys: { url_id: string; country: string; language: string }[]): Promise<void> {
  if (keys.length === 0) return;
  await db.query(SHARE_STATE);
  await db.query(BUMP_VERSION);
  await db.query(REFRESH_PROFILES, [keys.map((k) => k.url_id), keys.map((k) => k.country), keys.map((k) => k.language)]);
}

/** Bulk loads without incremental roll-ups: the next slide recomputes every profile. */
export async function invalidateWindows(db: Queryable): Promise<void> {
  await db.query(
    `UPDATE feed_windows_state SET as_of = '-infinity', prev_as_of = '-infinity', pending = false WHERE id = 1 AND as_of <> '-infinity'`,
  );
}
