// Market scope (README "Authentication and scope"): which countries a request may read.
import type { AuthContext } from './auth/types';
import type { Db } from './db/client';
import { queryRows } from './db/raw';
import { coded, forbidden, type ApiError } from './errors';
import { MARKET_NOT_ENTITLED } from './markets-entitled';

export interface MarketScope {
  /** As requested: `all` or an upper-case country code. */
  country: string;
  /** Upper-case alpha-2 codes measured. */
  markets: string[];
}

export function refusedRegion(code: string, auth: AuthContext): ApiError {
  const allowed = auth.allowedCountries?.length ? auth.allowedCountries.join(', ') : 'none';
  return forbidden(`Region '${code}' is not allowed for this API key. Allowed regions: ${allowed}.`);
}

export function isCountryAllowed(auth: AuthContext, code: string): boolean {
  return auth.allowedCountries === null || auth.allowedCountries.includes(code.toUpperCase());
}

/** Throws the spec's 403 for a single country outside the key's markets. */
export function assertCountryAllowed(auth: AuthContext, code: string): string {
  const upper = code.toUpperCase();
  if (!isCountryAllowed(auth, upper)) throw refusedRegion(upper, auth);
  return upper;
}

/** Every market in the reference data: what `all` means for an unrestricted key. */
export async function allMarkets(db: Db): Promise<string[]> {
  // Plain SQL, as drizzle's builder wrote it: no table definitions or query builder on a request's path.
  const rows = await queryRows<{ code: string }>(db, 'select "alpha_2" as "code" from "countries" order by "countries"."alpha_2" asc');
  return rows.map((r) => r.code);
}

/** Resolves `country` (`all` or a code) to the markets a request measures. */
export async function resolveMarkets(db: Db, auth: AuthContext, country = 'all'): Promise<MarketScope> {
  if (country.toLowerCase() !== 'all') {
    const code = assertCountryAllowed(auth, country);
    return { country: code, markets: [code] };
  }
  const markets =
    auth.allowedCountries ??
    (await allMarkets(db).catch((err: Error) => {
      console.error('market scope lookup failed', err.message);
      throw coded('scope_unavailable', 'The markets of this key could not be read just now; retry shortly.', {}, { 'Retry-After': '5' });
    }));
  if (markets.length === 0) {
    throw coded('market_not_entitled', MARKET_NOT_ENTITLED);
  }
  return { country: 'all', markets: [...markets].sort() };
}
