// The Scope the routes read with, for tests that call the reads directly: a key with these markets
// (every category), its markets listed and sorted as resolveMarkets lists them (shared/scope/scope.ts).
import type { Db } from '../../shared/db/client';
import { resolveMarkets, scopeOf, type ListedScope } from '../../shared/scope/scope';

export async function listedScope(db: Db, markets: string[]): Promise<ListedScope> {
  return (await resolveMarkets(db, scopeOf({ projectId: null, allowedCountries: markets, categories: null }))).scope;
}
