// Hourly observations and the two tables derived from them.
//
// - observations: keyed by (url_id, country, language, hour); a repeated hour REPLACES the stored
//   values (late or corrected data never double-counts).
// - url_profiles: every profile touched by a changed observation is recomputed from all of its
//   observations (exact under replacement):
//     first_seen   = first hour with impressions > 0 (the first observed hour if none had any);
//     last_seen    = END of the last hour with impressions > 0 (last observed hour if none), i.e. hour + 1h;
//     avg_position = impressions-weighted mean position (plain mean if no impressions);
//     impressions_total = sum of impressions.
// - market_days (country, language, UTC day): impressions and new_urls (profiles whose first_seen
//   falls on that day) are kept by exact integer deltas: new - old value of each changed hour, and
//   -1/+1 when a profile's first_seen day appears or moves. Deltas avoid rescanning whole market
//   days per batch, and stay exact because every change passes through here in one transaction.
// A bulk load's batches write the observations only; REBUILD_PROFILES derives both tables from all of
// them at its end (shared/ingest/bulk/rebuild.ts).
//
// Stored rows are read with `url_id = ANY(<the batch's URLs>)` in MATERIALIZED CTEs: only the
// primary keys start with url_id, so whatever the statistics say the planner can neither scan the
// whole (growing) table per batch nor wander into the (country, ...) indexes. Both happened with
// plain joins and made each batch O(table size).
import { trackProfileFirsts } from '../../entities/write';
import { refreshProfileWindows } from '../../feed/write';
import { noteNewMarket } from '../../db/write-plan-reads';
import { applyHourDeltas, recomputeSpans } from '../../rollups/write';
import { plainArray, RAISE_MEMORY } from './sql';
import { derive, tally, type BatchContext } from './types';

/** Whether the article's content language fits the profile's language (`pt-br` fits `pt`). */
export const FIT_SQL = (article: string, language: string) =>
  `(split_part(${article}.content_language, '-', 1) = split_part(${language}, '-', 1))`;

const UTC_DAY = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

/**
 * The batch's hours into observations (a stored hour is replaced, an identical one left alone), with
 * their old values: one primary-key probe per hour of the batch, never the URLs' other hours (what a
 * batch costs must not grow with the history of its URLs).
 */
const UPSERT_OBSERVATIONS = `
WITH old AS MATERIALIZED (
  SELECT o.url_id, o.country, o.language, o.hour, o.impressions, o.position
  FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[]) AS k(url_id, country, language, hour)
  CROSS JOIN LATERAL (
    SELECT * FROM observations o
    WHERE o.url_id = k.url_id AND o.country = k.country AND o.language = k.language AND o.hour = k.hour) o),
up AS (
  INSERT INTO observations (url_id, country, language, hour, impressions, position)
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::int[], $6::real[])
  ON CONFLICT (url_id, country, language, hour) DO UPDATE
    SET impressions = excluded.impressions, position = excluded.position
    WHERE (observations.impressions, observations.position) IS DISTINCT FROM (excluded.impressions, excluded.position)
  RETURNING url_id, country, language, hour, impressions, position, (xmax = 0) AS inserted)
SELECT up.url_id::text AS url_id, up.country, up.language, ${UTC_DAY('up.hour')} AS day, up.hour,
       up.impressions, old.impressions AS old_impressions, up.inserted,
       up.impressions::float8 * up.position - coalesce(old.impressions::float8 * old.position, 0) AS position_sum_delta
FROM up LEFT JOIN old USING (url_id, country, language, hour)`;

/**
 * A bulk load's batch: its hours (one row per key: the batch keeps the last line of each) appended to
 * the stage as they come, merged into observations at the load's end (shared/ingest/bulk/staged-observations.ts).
 */
const STAGED = `observations_staged (url_id, country, language, hour, impressions, position)`;
const STAGE_HOURS = `
  INSERT INTO ${STAGED}
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::int[], $6::real[])`;
/**
 * The same by COPY (IngestOptions.copyFrom), whose rows go to the heap in multi-row writes: much
 * faster than over unnest (docs/INGEST.md "Bulk loads").
 */
const COPY_HOURS = `COPY ${STAGED} FROM STDIN`;

const PROFILE_COLS = ['first_seen', 'last_seen', 'avg_position', 'content_language_fit', 'impressions_total'];

/** Each profile's url_profiles values from all of its observations (`where` narrows them to some URLs). */
const PROFILE_AGG = (where: string) => `
  SELECT o.url_id, o.country, o.language,
    coalesce(min(o.hour) FILTER (WHERE o.impressions > 0), min(o.hour)) AS first_seen,
    coalesce(max(o.hour) FILTER (WHERE o.impressions > 0), max(o.hour)) + interval '1 hour' AS last_seen,
    coalesce(sum(o.impressions::float8 * o.position) / nullif(sum(o.impressions), 0), avg(o.position)) AS avg_position,
    sum(o.impressions) AS impressions_total
  FROM observations o ${where}
  GROUP BY o.url_id, o.country, o.language`;

/** Writes the profiles `agg` computed (with the article's content language, `a`); a row that is already right is left alone. */
const PROFILE_UPSERT = (from: string) => `
  INSERT INTO url_profiles (url_id, country, language, ${PROFILE_COLS.join(', ')})
  SELECT agg.url_id, agg.country, agg.language, agg.first_seen, agg.last_seen, agg.avg_position,
         ${FIT_SQL('a', 'agg.language')}, agg.impressions_total
  FROM ${from}
  ON CONFLICT (url_id, country, language) DO UPDATE SET ${PROFILE_COLS.map((c) => `${c} = excluded.${c}`).join(', ')}
  WHERE (${PROFILE_COLS.map((c) => `url_profiles.${c}`).join(', ')}) IS DISTINCT FROM (${PROFILE_COLS.map((c) => `excluded.${c}`).join(', ')})`;

// prev reads every profile of the batch's URLs (rows of markets not in k drop out at the join); agg
// aggregates each touched profile's own hours (a primary-key range each), not its URL's other markets.
const RECOMPUTE_PROFILES = `
WITH k AS (SELECT DISTINCT * FROM unnest($1::uuid[], $2::text[], $3::text[]) AS k(url_id, country, language)),
prev AS MATERIALIZED (
  SELECT p.url_id, p.country, p.language, p.first_seen FROM url_profiles p WHERE p.url_id = ANY($4::uuid[])),
agg AS (
  SELECT a.* FROM k CROSS JOIN LATERAL (${PROFILE_AGG('WHERE o.url_id = k.url_id AND o.country = k.country AND o.language = k.language')}) a),
up AS (${PROFILE_UPSERT(`agg JOIN k USING (url_id, country, language)
  CROSS JOIN LATERAL (SELECT content_language FROM articles a WHERE a.id = agg.url_id LIMIT 1) a`)}
  RETURNING url_id, country, language, first_seen, (xmax = 0) AS inserted)
SELECT up.url_id::text AS url_id, up.country, up.language, ${UTC_DAY('up.first_seen')} AS day, ${UTC_DAY('prev.first_seen')} AS prev_day, up.inserted
FROM up LEFT JOIN prev USING (url_id, country, language)`;

/**
 * url_profiles and market_days from every observation, their definition: a bulk load's batches
 * leave both to its end (shared/ingest/bulk/rebuild.ts), and the oracles prove the kept ones equal to it.
 */
export const REBUILD_PROFILES = [
  RAISE_MEMORY('work_mem', '256MB'),
  PROFILE_UPSERT(`(${PROFILE_AGG('')}) agg JOIN articles a ON a.id = agg.url_id`),
  `TRUNCATE market_days`,
  `INSERT INTO market_days (country, language, day, impressions, new_urls)
   SELECT o.country, o.language, o.day, o.impressions, coalesce(n.new_urls, 0)
   FROM (SELECT country, language, (hour AT TIME ZONE 'UTC')::date AS day, sum(impressions) AS impressions
         FROM observations GROUP BY 1, 2, 3) o
   LEFT JOIN (SELECT country, language, (first_seen AT TIME ZONE 'UTC')::date AS day, count(*)::int AS new_urls
              FROM url_profiles GROUP BY 1, 2, 3) n USING (country, language, day)`,
];

const APPLY_MARKET_DAYS = `
INSERT INTO market_days (country, language, day, impressions, new_urls)
SELECT * FROM unnest($1::text[], $2::text[], $3::date[], $4::int8[], $5::int4[])
ON CONFLICT (country, language, day) DO UPDATE
  SET impressions = market_days.impressions + excluded.impressions, new_urls = market_days.new_urls + excluded.new_urls
  WHERE excluded.impressions <> 0 OR excluded.new_urls <> 0
RETURNING (xmax = 0) AS inserted`;

interface ChangedHour {
  url_id: string;
  country: string;
  language: string;
  day: string;
  hour: Date;
  position_sum_delta: number;
  impressions: number;
  old_impressions: number | null;
  inserted: boolean;
}

interface ChangedProfile {
  url_id: string;
  country: string;
  language: string;
  day: string;
  prev_day: string | null;
  inserted: boolean;
}

class DayDeltas {
  readonly map = new Map<string, { impressions: number; newUrls: number }>();
  add(country: string, language: string, day: string, impressions: number, newUrls: number): void {
    const key = `${country}\u0001${language}\u0001${day}`;
    const d = this.map.get(key) ?? { impressions: 0, newUrls: 0 };
    d.impressions += impressions;
    d.newUrls += newUrls;
    this.map.set(key, d);
  }
}

export async function writeObservations(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.observation;
  if (items.length === 0) return;
  // Last line wins for a repeated hour within the batch, as it would across batches.
  const byKey = new Map<string, (typeof items)[number]['record']>();
  for (const { record: r } of items) byKey.set(`${r.url_id}|${r.country}|${r.language}|${r.hour}`, r);
  const rows = [...byKey.values()];
  // Validated uuids, market codes, ISO hours and finite numbers: written as they are, with nothing to
  // quote in an array literal (plainArray) or to escape in COPY's text format.
  const hours = () => [
    plainArray(rows.map((r) => r.url_id)),
    plainArray(rows.map((r) => r.country)),
    plainArray(rows.map((r) => r.language)),
    plainArray(rows.map((r) => r.hour)),
    plainArray(rows.map((r) => r.impressions)),
    plainArray(rows.map((r) => r.position)),
  ];
  if (!ctx.rollups) {
    // A bulk load: its hours are staged, and merged into observations at its end (which counts what
    // they inserted and changed and sets the feed windows back); profiles, market days and feed
    // windows are rebuilt from them then.
    if (ctx.copyFrom)
      await ctx.copyFrom(
        COPY_HOURS,
        rows.map((r) => `${r.url_id}\t${r.country}\t${r.language}\t${r.hour}\t${r.impressions}\t${r.position}\n`).join(''),
      );
    else await ctx.db.query(STAGE_HOURS, hours());
    tally(ctx, 'observation', items.length, 0, 0);
    return;
  }
  const res = await ctx.db.query<ChangedHour>(UPSERT_OBSERVATIONS, hours());
  const inserted = res.rows.filter((r) => r.inserted).length;
  tally(ctx, 'observation', items.length, inserted, res.rows.length - inserted);
  if (res.rows.length === 0) return;

  const deltas = new DayDeltas();
  const profiles = new Map<string, ChangedHour>();
  for (const h of res.rows) {
    deltas.add(h.country, h.language, h.day, Number(h.impressions) - Number(h.old_impressions ?? 0), 0);
    profiles.set(`${h.url_id}|${h.country}|${h.language}`, h);
  }
  const keys = [...profiles.values()];
  const changedHours = res.rows.map((h) => ({ ...h, hour: new Date(h.hour).toISOString() }));
  await applyHourDeltas(
    ctx.db,
    changedHours.map((h) => ({
      url_id: h.url_id,
      country: h.country,
      language: h.language,
      hour: h.hour,
      impressions: Number(h.impressions) - Number(h.old_impressions ?? 0),
      position_sum: Number(h.position_sum_delta),
    })),
  );
  for (const url of await recomputeSpans(ctx.db, changedHours)) ctx.lostSpanUrls.add(url);
  for (const k of keys) ctx.spanUrls.add(k.url_id);
  const profileUrls = [...new Set(keys.map((p) => p.url_id))];
  const entityHours = await trackProfileFirsts(ctx.db, profileUrls, ctx.entityTops);
  const changed = await ctx.db.query<ChangedProfile>(RECOMPUTE_PROFILES, [
    keys.map((p) => p.url_id),
    keys.map((p) => p.country),
    keys.map((p) => p.language),
    [...new Set(keys.map((p) => p.url_id))],
  ]);
  // Feed windows follow the recomputed profiles (first_seen decides `previous = null`).
  await refreshProfileWindows(ctx.db, keys);
  const newProfiles = changed.rows.filter((p) => p.inserted).length;
  // A new market of an article can make it visible to more keys under its hierarchy nodes.
  for (const p of changed.rows) if (p.inserted) ctx.hierarchyUrls.add(p.url_id);
  derive(ctx, 'url_profiles', { inserted: newProfiles, updated: changed.rows.length - newProfiles });
  await entityHours.apply();
  for (const p of changed.rows) {
    if (p.inserted) noteNewMarket(ctx, p.url_id, p.country, p.language);
    if (p.prev_day === p.day) continue;
    if (p.prev_day !== null) deltas.add(p.country, p.language, p.prev_day, 0, -1);
    deltas.add(p.country, p.language, p.day, 0, 1);
  }

  const entries = [...deltas.map];
  const parts = entries.map(([k]) => k.split('\u0001'));
  const days = await ctx.db.query<{ inserted: boolean }>(APPLY_MARKET_DAYS, [
    parts.map((p) => p[0]),
    parts.map((p) => p[1]),
    parts.map((p) => p[2]),
    entries.map(([, d]) => d.impressions),
    entries.map(([, d]) => d.newUrls),
  ]);
  const newDays = days.rows.filter((d) => d.inserted).length;
  derive(ctx, 'market_days', { inserted: newDays, updated: days.rows.length - newDays });
}
