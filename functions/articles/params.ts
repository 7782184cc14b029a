// Query values the articles area parses itself: `;`-separated lists and taxonomy paths.
import { CATEGORY_PATH } from '../../shared/schemas/categories';
import { invalid } from '../../shared/http/errors';
import { capList } from '../../shared/scope/list-caps';

export { CATEGORY_PATH };

/** `a; b;;c` -> `['a', 'b', 'c']` (trimmed, empty parts and repeats dropped, capped); undefined stays null. */
export function splitList(raw: string | undefined, name: string): string[] | null {
  if (raw === undefined) return null;
  return capList(
    [
      ...new Set(
        raw
          .split(';')
          .map((part) => part.trim())
          .filter(Boolean),
      ),
    ],
    name,
  );
}

/** `;`-separated taxonomy paths; 422 naming the parameter when one is not a path. */
export function categoryPaths(raw: string | undefined, name: string): string[] | null {
  const paths = splitList(raw, name);
  if (paths === null) return null;
  const bad = paths.find((p) => !CATEGORY_PATH.test(p));
  if (bad !== undefined || paths.length === 0) {
    throw invalid(
      ['query', name],
      `Expected taxonomy paths like /Sports/Soccer separated by ';'${bad ? `, got '${bad}'` : ''}`,
      'string_pattern_mismatch',
    );
  }
  return paths;
}
