// Reads of GET /v2/live/stream. Live part: profiles in arrival order (profile_windows.seen_version, the
// feed version that first wrote them, drizzle/0022), after a position and up to the current version,
// in one statement with their items: whatever has a version <= the one read here is committed, and
// nothing later can take one, so resuming after the last position loses nothing. Backfill part: the
// live feed's own cursor read (queries.ts readPage), oldest first, as of the stream's first version.
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import { bounds, selectItems, type ItemOptions, type ItemRow } from './items';
import { FILTER_PARAMS, type FeedFilter, WHERE_ON } from './queries';

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

/** Up to `limit` profiles that arrived after `after`, in arrival order, with their items. */
export async function readArrivals(db: Db, f: FeedFilter, after: Arrival, limit: number, o: ItemOptions): Promise<ArrivalRead> {
  const params: unknown[] = [...FILTER_PARAMS(f), after.v, after.k?.[0] ?? null, after.k?.[1] ?? null, after.k?.[2] ?? null, limit];
  const n = params.length + 1;
  params.push(...bounds(o));
  // Keys compare in the collation-free order of uuid and "C" text, as compareArrivals does.
  const result = await queryRows<ItemRow & { seen_version: string; head: string; as_of: number }>(
    db,
    `WITH cur AS (SELECT version FROM feed_versions WHERE id = 1),
     page AS MATERIALIZED (
       SELECT w.seen_version, w.url_id, w.country, w.language FROM profile_windows w
       WHERE ${WHERE_ON('w', f)} AND w.seen_version >= $10::int8 AND w.seen_version <= (SELECT version FROM cur)
         AND (w.seen_version > $10::int8 OR ($11::uuid IS NOT NULL AND (w.url_id, w.country COLLATE "C", w.language COLLATE "C") > ($11::uuid, $12::text COLLATE "C", $13::text COLLATE "C")))
       ORDER BY w.seen_version, w.url_id, w.country COLLATE "C", w.language COLLATE "C" LIMIT $14)
     SELECT (SELECT version FROM cur)::text AS head,
       (SELECT extract(epoch FROM as_of)::float8 FROM feed_windows_state WHERE id = 1) AS as_of, i.* FROM (SELECT 1) one LEFT JOIN LATERAL (
       ${selectItems(n)}, k.seen_version::text AS seen_version
       FROM page k
       JOIN url_profiles p ON (p.url_id, p.country, p.language) = (k.url_id, k.country, k.language)
       JOIN articles a ON a.id = k.url_id
       LEFT JOIN publishers pub ON pub.domain = a.domain) i ON true
     ORDER BY i.seen_version::int8, i.url_id, i.country COLLATE "C", i.language COLLATE "C"`,
    params,
  );
  const version = Number(result[0]?.head ?? after.v);
  const rows = result.filter((r) => r.url_id !== null).map(({ head: _, as_of: __, ...row }) => row);
  return { rows, version, asOf: Number(result[0]?.as_of) * 1000 };
}

/** The current feed version: where a stream that wants only what is new starts. */
export async function currentVersion(db: Db): Promise<number> {
  const [row] = await queryRows<{ version: string }>(db, 'SELECT version::text FROM feed_versions WHERE id = 1');
  return Number(row?.version ?? 0);
}
