// Reads of GET /v2/live/stream. Live part: profiles in arrival order (profile_windows.seen_version, the
// feed version that first wrote them, drizzle/0022), after a position and up to the current version,
// in one statement with their items: whatever has a version <= the one read here is committed, and
// nothing later can take one, so resuming after the last position loses nothing. Backfill part: the
// live feed's own cursor read (queries.ts readPage), oldest first, as of the stream's first version.
import { sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import { feedVersions, feedWindowsState, profileWindows } from '../../shared/db/schema/feed';
import { ITEM_JOINS, type ItemOptions, type ItemRow, selectItems } from './items';
import { type FeedFilter, whereOn } from './queries';

/** A place in arrival order: after profile `k` of version `v`, or (k null) after all of version `v`. */
export interface Arrival {
  v: number;
  k: [string, string, string] | null;
}

export const compareArrivals = (a: Arrival, b: Arrival): number => {
  if (a.v !== b.v) return a.v - b.v;
  if (a.k === null || b.k === null) return a.k === b.k ? 0 : a.k === null ? 1 : -1;
  for (let i = 0; i < 3; i++) if (a.k[i] !== b.k[i]) return a.k[i] < b.k[i] ? -1 : 1;
  return 0;
};

export interface ArrivalRead {
  rows: (ItemRow & { seen_version: string })[];
  /** The feed version the read saw. */
  version: number;
  /** When the windows table ends (ms): the caller slides it if its hour moved (as a page does). */
  asOf: number;
}

/** The profiles a read walks in arrival order. */
const w = alias(profileWindows, 'w');

/** Up to `limit` profiles that arrived after `after`, in arrival order, with their items. */
export async function readArrivals(db: Db, f: FeedFilter, after: Arrival, limit: number, o: ItemOptions): Promise<ArrivalRead> {
  const [urlId, country, language] = after.k ?? [null, null, null];
  // Keys compare in the collation-free order of uuid and "C" text, as compareArrivals does.
  const result = await sqlRows<ItemRow & { seen_version: string; head: string; as_of: number }>(
    db,
    sql`WITH cur AS (SELECT ${feedVersions.version} FROM ${feedVersions} WHERE ${feedVersions.id} = 1),
     page AS MATERIALIZED (
       SELECT ${w.seenVersion}, ${w.urlId}, ${w.country}, ${w.language} FROM ${profileWindows} ${w}
       WHERE ${whereOn(w, f)} AND ${w.seenVersion} >= ${after.v}::int8 AND ${w.seenVersion} <= (SELECT version FROM cur)
         AND (${w.seenVersion} > ${after.v}::int8 OR (${urlId}::uuid IS NOT NULL
           AND (${w.urlId}, ${w.country} COLLATE "C", ${w.language} COLLATE "C") > (${urlId}::uuid, ${country}::text COLLATE "C", ${language}::text COLLATE "C")))
       ORDER BY ${w.seenVersion}, ${w.urlId}, ${w.country} COLLATE "C", ${w.language} COLLATE "C" LIMIT ${limit})
     SELECT (SELECT version FROM cur)::text AS head,
       (SELECT extract(epoch FROM ${feedWindowsState.asOf})::float8 FROM ${feedWindowsState} WHERE ${feedWindowsState.id} = 1) AS as_of,
       i.* FROM (SELECT 1) one LEFT JOIN LATERAL (
       ${selectItems(o)}, k.seen_version::text AS seen_version
       FROM page k
       ${ITEM_JOINS}) i ON true
     ORDER BY i.seen_version::int8, i.url_id, i.country COLLATE "C", i.language COLLATE "C"`,
  );
  const version = Number(result[0]?.head ?? after.v);
  const rows = result.filter((r) => r.url_id !== null).map(({ head: _, as_of: __, ...row }) => row);
  return { rows, version, asOf: Number(result[0]?.as_of) * 1000 };
}

/** The current feed version: where a stream that wants only what is new starts. */
export async function currentVersion(db: Db): Promise<number> {
  const [row] = await sqlRows<{ version: string }>(
    db,
    sql`SELECT ${feedVersions.version}::text FROM ${feedVersions} WHERE ${feedVersions.id} = 1`,
  );
  return Number(row?.version ?? 0);
}
