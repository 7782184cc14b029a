// Caps on `;`-separated query lists (issue 19): every item becomes a predicate, so an uncapped list
// turns one request into seconds of database time. One bound for every list, named in the 422.
import { invalid } from './errors';

/** Most items one `;`-separated list (categories, entities) may carry. */
export const MAX_LIST_ITEMS = 20;

/** The parts, or a 422 naming the parameter when there are more than MAX_LIST_ITEMS. */
export function capList<T>(parts: T[], name: string): T[] {
  if (parts.length > MAX_LIST_ITEMS) {
    throw invalid(['query', name], `At most ${MAX_LIST_ITEMS} values separated by ';' (got ${parts.length})`, 'too_long');
  }
  return parts;
}

/** The OpenAPI wording of the cap, appended to each list parameter's description. */
export const LIST_CAP_NOTE = ` At most ${MAX_LIST_ITEMS} values (more is 422).`;
