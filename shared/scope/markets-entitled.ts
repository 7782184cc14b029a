// One `market_not_entitled` rule for every market-scoped route (README "Authentication and scope"): a key whose
// markets resolve to nothing (its project has none, or the key's own list shares none with it) is
// refused with 403 `market_not_entitled` before anything is read, whatever `country`/`region` says,
// rather than answering empty lists on some routes and 403 on others.
import type { AuthContext } from '../auth/types';
import { coded } from '../http/errors';

/** Keyed routes that are not market-scoped: project data, the key's usage, the language reference, the MCP envelope. */
const NOT_MARKET_SCOPED = [
  /^\/v1\/tracking\/lists\/?$/,
  /^\/v1\/tracking\/lists\/[^/]+\/?$/,
  /^\/v1\/usage\/?$/,
  /^\/v[12]\/geo\/languages\/?$/,
  /^\/mcp(\/|$)/,
];

export const MARKET_NOT_ENTITLED =
  'This key is market-scoped but its project has no markets (or none the key may use), so no market can be read.';

export function assertMarketsEntitled(path: string, auth: AuthContext): void {
  if (auth.allowedCountries === null || auth.allowedCountries.length > 0) return;
  if (NOT_MARKET_SCOPED.some((re) => re.test(path))) return;
  throw coded('market_not_entitled', MARKET_NOT_ENTITLED);
}
