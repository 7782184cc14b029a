// Compile-time proof of the tenant rule, a query that forgets the tenant does not type-check (docs/SECURITY.md "The tenant in the type"): `npm run typecheck`
// checks this file and fails if any line marked @ts-expect-error compiles. Never run.
import { listEntities } from '../../functions/entities/queries';
import { getRegion, listRegions } from '../../functions/geo/queries';
import { listItems } from '../../functions/tracking/queries';
import { listTrends } from '../../functions/trends/queries';
import type { AuthContext } from '../../shared/auth/types';
import type { Db } from '../../shared/db/client';
import { EVERY_CATEGORY, EVERY_MARKET, scopeOf, withCountry, type Scope } from '../../shared/scope/scope';

const filter = { search: null, entityType: null, minScore: 0, limit: 1, offset: 0 };

export function scopeProofs(db: Db, auth: AuthContext) {
  // @ts-expect-error a literal is not a Scope: only shared/scope/scope.ts makes one, from the key
  const forged: Scope = { projectId: null, markets: EVERY_MARKET, planCategories: EVERY_CATEGORY };
  // @ts-expect-error a query without the caller's scope does not type-check
  void getRegion(db, 'US');
  // @ts-expect-error the key's raw countries are not a scope
  void listRegions(db, auth.allowedCountries, false);
  const trendScope = { markets: null, planCategories: null };
  const page = { minArticles: 1, sortBy: 'article_count', sortOrder: 'desc', limit: 1, offset: 0 } as const;
  // @ts-expect-error nor is the shape the trends area used before (TrendScope)
  void listTrends(db, trendScope, page);
  // @ts-expect-error the entity reads take the scope, not countries and categories apart
  void listEntities(db, auth.allowedCountries, auth.categories, filter);
  // @ts-expect-error a tracking list's items need the project they belong to
  void listItems(db, 'list-id');

  const scope = scopeOf(auth);
  void getRegion(db, withCountry(scope, 'us'), 'US');
  void listEntities(db, scope, filter);
  return forged;
}
