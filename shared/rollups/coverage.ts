// Whether a scope covers every market with data: then the all-markets rows and the activity hulls
// answer it (activity-counts.ts). The countries with data are asked once per request, and the request
// paths start that read beside their Redis wave (`prefetchMarketsWithData`), kept in the isolate for
// ISOLATE_CACHE_SECONDS: the reads that need it then wait for nothing.
import { sql } from 'drizzle-orm';
import type { Config } from '../env';
import { heldOrLoaded } from '../cache/memory';
import { namespaces } from '../cache/namespaces';
import type { Db } from '../db/client';
import { sqlRows } from '../db/raw';
import { marketDays } from '../db/schema/content';

const perRequest = namespaces.marketsPerRequest.held;
const held = namespaces.marketsWithData.held;

const load = async (db: Db) =>
  (await sqlRows<{ country: string }>(db, sql`SELECT DISTINCT ${marketDays.country} FROM ${marketDays}`)).map((r) => r.country);

/** Countries with observations (market_days), once per request (`db` is the request's). */
export function marketsWithData(db: Db): Promise<string[]> {
  let found = perRequest.get(db);
  if (!found) perRequest.set(db, (found = load(db)));
  return found;
}

/** Starts `marketsWithData` now, from the isolate's copy when it holds one. */
export function prefetchMarketsWithData(config: Config, db: Db): void {
  if (perRequest.has(db)) return;
  const key = JSON.stringify([config.DATABASE_URL, 'markets-with-data']);
  const found = heldOrLoaded(held, key, config.ISOLATE_CACHE_SECONDS, 1_024, () => load(db)).then((v) => v ?? []);
  found.catch(() => undefined); // whoever awaits it sees the error
  perRequest.set(db, found);
}

/** True when no market outside `markets` has data. */
export const coversAllMarkets = (withData: string[], markets: string[]): boolean => withData.every((c) => markets.includes(c));
