// Hourly batches in the live shape: one hour of observations for every active profile of a loaded
// database, with the defects a crawler sends along: late corrections of the previous hour (some to
// zero impressions, so activity is lost as well as gained) and lines repeated in the same batch.
import type { Queryable } from '../../shared/db/queryable';
import { Rng } from '../generate/prng';

const HOUR_MS = 3_600_000;

export interface Profile {
  url_id: string;
  country: string;
  language: string;
}

/** Profiles seen within `days` of `now` (every profile when `days` is Infinity). */
export async function activeProfiles(db: Queryable, now: Date, days: number): Promise<Profile[]> {
  const since = Number.isFinite(days) ? new Date(now.getTime() - days * 24 * HOUR_MS).toISOString() : '-infinity';
  const { rows } = await db.query<Profile>(
    `SELECT url_id::text, country, language FROM url_profiles WHERE last_seen >= $1::timestamptz ORDER BY url_id, country, language`,
    [since],
  );
  return rows;
}

const line = (p: Profile, hour: Date, impressions: number, position: number) =>
  JSON.stringify({
    type: 'observation',
    url_id: p.url_id,
    country: p.country,
    language: p.language,
    hour: hour.toISOString(),
    impressions,
    position,
  });

/**
 * The lines of hour `hour`: each profile once (10% with zero impressions), plus 2% late lines for the
 * hour before (a third of them zero) and 1% repeated lines. Seeded by the hour: reruns are identical.
 */
export function hourLines(profiles: readonly Profile[], hour: Date): string[] {
  const rng = new Rng(Math.floor(hour.getTime() / HOUR_MS));
  const previous = new Date(hour.getTime() - HOUR_MS);
  const out: string[] = [];
  for (const p of profiles) {
    const impressions = rng.chance(0.1) ? 0 : rng.int(1, 400);
    const current = line(p, hour, impressions, Math.round(rng.uniform(1, 15) * 10) / 10);
    out.push(current);
    if (rng.chance(0.02)) out.push(line(p, previous, rng.chance(0.33) ? 0 : rng.int(1, 400), Math.round(rng.uniform(1, 15) * 10) / 10));
    if (rng.chance(0.01)) out.push(current);
  }
  return out;
}
