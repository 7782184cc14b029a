// Category paths are a hierarchy (docs/DECISIONS.md "Category paths are a hierarchy"): a path matches itself and
// every descendant, by whole path segment and case-sensitively, so `/Sports` matches `/Sports` and
// `/Sports/Soccer` but neither `/Sportswear` nor `/sports`. This module is that one rule, for
// TypeScript and for SQL; feed filters, tracking category lists (through url_dimensions) and
// `/v1/analytics/categories` all use it.

/** A taxonomy path: `/Top` or `/Top/Sub[/Sub]` (no `;`, which separates paths in query values). */
export const CATEGORY_PATH = /^(\/[^/;]+)+$/;

/** True when `path` is `filter` or lies under it. */
export function categoryMatches(path: string, filter: string): boolean {
  return path === filter || path.startsWith(`${filter}/`);
}

/** `/A/B/C` -> `['/A', '/A/B', '/A/B/C']`: every path the category matches under (itself included). */
export function categoryPrefixes(path: string): string[] {
  const parts = path.split('/').slice(1);
  return parts.map((_, i) => `/${parts.slice(0, i + 1).join('/')}`);
}
