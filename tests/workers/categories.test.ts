// The category hierarchy rule (shared/schemas/categories.ts) is one rule: the TypeScript helpers, the SQL
// fragment (shared/db/article-filters.ts categoryMatch) and the database's category_prefixes() agree on random paths, including near-misses
// (`/Sports` vs `/Sportswear`, case) that a plain prefix test would get wrong.
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { categoryMatch } from '../../shared/db/article-filters';
import { sqlRows } from '../../shared/db/raw';
import { categoryMatches, categoryPrefixes } from '../../shared/schemas/categories';
import { createWorld, type World } from '../helpers/world';

let world: World;
beforeAll(async () => {
  world = await createWorld('categories');
});

const segment = fc.constantFrom('Sports', 'Sportswear', 'sports', 'Soccer', 'News', 'A', 'A b', 'Ünï');
const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`);

describe('category hierarchy', () => {
  it('examples', () => {
    expect(categoryMatches('/Sports/Soccer', '/Sports')).toBe(true);
    expect(categoryMatches('/Sports', '/Sports')).toBe(true);
    expect(categoryMatches('/Sportswear', '/Sports')).toBe(false);
    expect(categoryMatches('/sports/Soccer', '/Sports')).toBe(false);
    expect(categoryMatches('/Sports', '/Sports/Soccer')).toBe(false);
    expect(categoryPrefixes('/A/B/C')).toEqual(['/A', '/A/B', '/A/B/C']);
  });

  it('SQL agrees with TypeScript on random paths', async () => {
    await fc.assert(
      fc.asyncProperty(path, path, async (a, b) => {
        const [row] = await sqlRows<{ matches: boolean; prefixes: string[] }>(
          world.db,
          sql`SELECT ${categoryMatch(sql`${a}::text`, sql`${b}::text`)} AS matches, category_prefixes(${a}::text) AS prefixes`,
        );
        expect(row.matches, `${a} under ${b}`).toBe(categoryMatches(a, b));
        expect(row.prefixes).toEqual(categoryPrefixes(a));
        expect(categoryPrefixes(a).every((p) => categoryMatches(a, p))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});
