// The scope of a roll-up read: a dimension's keys (given, or found by the database), the key's Scope
// (its markets listed) and the language.
import { type SQL, sql } from 'drizzle-orm';
import type { DimensionKind } from '../db/schema';
import type { ListedScope } from '../scope/scope';

export interface DimScope {
  kind: DimensionKind;
  /**
   * The keys, or a statement that finds them in the database (a page of a tracking list resolved):
   * reads then name their keys in SQL (`keysSql`) rather than wait for a first statement's answer,
   * so every read of an answer runs in one wave.
   */
  keys: string[] | DerivedKeys;
  /** The key's scope with the markets measured listed (shared/scope/scope.ts `resolveMarkets`). */
  keyScope: ListedScope;
  /** Lower-case language, or null for all. */
  language: string | null;
  /**
   * Whether the scope is every market with data and every language, which the all-markets rows and
   * the activity hulls answer. Unset: each read finds out (coverage.ts: once per request);
   * `withCoverage` settles it for reads that share a scope.
   */
  everyMarket?: boolean;
}

/** A scope whose keys are given (references, tests and benchmarks compare per key). */
export interface KeyedScope extends DimScope {
  keys: string[];
}

/** Keys the database finds: `sql` is an expression of type text[] (a statement that selects them: a scalar subquery). */
export interface DerivedKeys {
  sql: SQL;
  /**
   * Each key holds a large share of the URLs (category paths hold their descendants' URLs): reads
   * over url_spans then take the scope's spans once and join them to each key's URLs (read.ts
   * `distinctFromSpans`) rather than walk each key's URLs.
   */
  broad?: boolean;
}

/** The scope's keys as a text[] expression: one parameter, or the statement that finds them. */
export const keysSql = (scope: DimScope): SQL =>
  Array.isArray(scope.keys) ? sql`${sql.param(scope.keys)}::text[]` : sql`(${scope.keys.sql})::text[]`;

/** The keys known before any read (none when the database finds them): reads answer each of these. */
export const knownKeys = (scope: DimScope): string[] => (Array.isArray(scope.keys) ? scope.keys : []);

/** `map`'s entry for `key`, made by `make` the first time. */
export function entry<V>(map: Map<string, V>, key: string, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

export interface KeyDistinct {
  publications: number;
  publishers: number;
  trends: number;
  lastSeen: Date | null;
}
