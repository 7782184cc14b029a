// Query values the articles area parses itself: `;`-separated lists and taxonomy paths.
import { CATEGORY_PATH } from '../../shared/categories';
import { invalid } from '../../shared/errors';

export { CATEGORY_PATH };

/** `a; b;;c` -> `['a', 'b', 'c']` (trimmed, empty parts and repeats dropped); undefined stays null. */
export function splitList(raw: string | undefined): string[] | null {
  if (raw === undefined) return null;
  return [...new Set(raw.split(';').map((part) => part.trim()).filter(Boolean))];
}

/** `;`-separated taxonomy paths; 422 naming the parameter when one is not a path. */
export function categoryPaths(raw: string | undefined, name: string): string[] | null {
  const paths = splitList(raw);
  if (paths === null) return null;
  const bad = paths.find((p) => !CATEGORY_PATH.test(p));
  if (bad !== undefined || paths.length === 0) {
    throw invalid(['query', name], `Expected taxonomy paths like /Sports/Soccer separated by ';'${bad ? `, got '${bad}'` : ''}`, 'string_pattern_mismatch');
  }
  return paths;
}
