// The tenant of a request: one branded `Scope` built only from the authenticated key, which every
// query takes (docs/SECURITY.md "The tenant in the type"; README "Authentication and scope").
import type { AuthContext } from '../auth/types';
import type { Db } from '../db/client';
import { queryRows } from '../db/raw';
import { coded, forbidden, type ApiError } from '../http/errors';
import { MARKET_NOT_ENTITLED } from './markets-entitled';

/** Every market (internal keys): a value of its own, not `null`, so no reader mistakes it for "none". */
export const EVERY_MARKET = 'every-market';
/** Every category (plans without chosen top levels). */
export const EVERY_CATEGORY = 'every-category';

/**
 * The `country` of the rows that hold every market at once (entity_best, entity_category_best,
 * hierarchy_counts: docs/DATA.md), which an every-market scope reads instead of each market's rows.
 */
export const EVERY_MARKET_ROW = `'*'`;

/** Only this module names the brand, so no other can build a Scope from a literal. */
declare const brand: unique symbol;

export interface Scope {
  readonly [brand]: 'Scope';
  /** The key's project; null for internal and legacy keys. */
  readonly projectId: string | null;
  /** Upper-case alpha-2 codes the request reads, in the key's order, or every market. */
  readonly markets: typeof EVERY_MARKET | readonly string[];
  /** The plan's chosen top-level categories, or every category. */
  readonly planCategories: typeof EVERY_CATEGORY | readonly string[];
}

/** What a scope is built from: the authenticated key (tests pass the same three fields). */
export type ScopeSource = Pick<AuthContext, 'projectId' | 'allowedCountries' | 'categories'>;

function make(projectId: string | null, markets: readonly string[], planCategories: Scope['planCategories']): ListedScope;
function make(projectId: string | null, markets: Scope['markets'], planCategories: Scope['planCategories']): Scope;
function make(projectId: string | null, markets: Scope['markets'], planCategories: Scope['planCategories']): Scope {
  // The one place a Scope is made: the brand exists only in the type, so the value is the plain record.
  return { projectId, markets, planCategories } as Scope;
}

/** The scope of the authenticated key: its project, its markets and its plan's categories. */
export const scopeOf = (auth: ScopeSource): Scope =>
  make(auth.projectId, auth.allowedCountries ?? EVERY_MARKET, auth.categories ?? EVERY_CATEGORY);

/** The markets as the SQL reads them: a text[] parameter, NULL for every market. */
export const marketsParam = (scope: Scope): string[] | null => (scope.markets === EVERY_MARKET ? null : [...scope.markets]);

/** The plan's top levels as the SQL reads them: a text[] parameter, NULL for every category. */
export const categoriesParam = (scope: Scope): string[] | null =>
  scope.planCategories === EVERY_CATEGORY ? null : [...scope.planCategories];

/**
 * A Scope whose markets are a list: `all` resolved against the reference data (resolveMarkets), for
 * reads that measure per market and take no NULL for every market.
 */
export type ListedScope = Scope & { readonly markets: readonly string[] };

/** The listed markets as the SQL reads them: a text[] parameter, upper-case and sorted. */
export const marketList = (scope: ListedScope): string[] => [...scope.markets];

/** The listed scope narrowed to the markets among `codes` (upper-case), in its order: never wider. */
export const among = (scope: ListedScope, codes: readonly string[]): ListedScope =>
  make(
    scope.projectId,
    scope.markets.filter((m) => codes.includes(m)),
    scope.planCategories,
  );

export interface MarketScope {
  /** As requested: `all` or an upper-case country code. */
  country: string;
  /** The key's scope with the markets measured: upper-case alpha-2 codes, sorted. */
  scope: ListedScope;
}

export function refusedRegion(code: string, scope: Scope): ApiError {
  const allowed = scope.markets !== EVERY_MARKET && scope.markets.length ? scope.markets.join(', ') : 'none';
  return forbidden(`Region '${code}' is not allowed for this API key. Allowed regions: ${allowed}.`);
}

export function isCountryAllowed(scope: Scope, code: string): boolean {
  return scope.markets === EVERY_MARKET || scope.markets.includes(code.toUpperCase());
}

/** Throws the spec's 403 for a single country outside the key's markets. */
export function assertCountryAllowed(scope: Scope, code: string): string {
  const upper = code.toUpperCase();
  if (!isCountryAllowed(scope, upper)) throw refusedRegion(upper, scope);
  return upper;
}

/**
 * The scope narrowed to a request's `country` (`all` or a code): one market (403 outside the key's),
 * or the key's markets sorted (403 `market_not_entitled` when it has none).
 */
export function withCountry(scope: Scope, country: string): Scope {
  if (country.toLowerCase() !== 'all') return make(scope.projectId, [assertCountryAllowed(scope, country)], scope.planCategories);
  if (scope.markets === EVERY_MARKET) return scope;
  if (scope.markets.length === 0) throw coded('market_not_entitled', MARKET_NOT_ENTITLED);
  return make(scope.projectId, [...scope.markets].sort(), scope.planCategories);
}

/** Every market in the reference data: what `all` means for an unrestricted key. */
export async function allMarkets(db: Db): Promise<string[]> {
  // Plain SQL, as drizzle's builder wrote it: no table definitions or query builder on a request's path.
  const rows = await queryRows<{ code: string }>(db, 'select "alpha_2" as "code" from "countries" order by "countries"."alpha_2" asc');
  return rows.map((r) => r.code);
}

/** Resolves `country` (`all` or a code) to the markets a request measures, as a list (reads that need one). */
export async function resolveMarkets(db: Db, scope: Scope, country = 'all'): Promise<MarketScope> {
  if (country.toLowerCase() !== 'all') {
    const code = assertCountryAllowed(scope, country);
    return { country: code, scope: make(scope.projectId, [code], scope.planCategories) };
  }
  const markets =
    scope.markets !== EVERY_MARKET
      ? scope.markets
      : await allMarkets(db).catch((err: Error) => {
          console.error('market scope lookup failed', err.message);
          throw coded(
            'scope_unavailable',
            'The markets of this key could not be read just now; retry shortly.',
            {},
            { 'Retry-After': '5' },
          );
        });
  if (markets.length === 0) {
    throw coded('market_not_entitled', MARKET_NOT_ENTITLED);
  }
  return { country: 'all', scope: make(scope.projectId, [...markets].sort(), scope.planCategories) };
}
