// Caps on list-valued query parameters (docs/SECURITY.md "Caps on query shapes"): every item becomes a predicate, so an uncapped list
// turns one request into seconds of database time. Each cap is named in its 422 and in the document.
import { invalid } from '../http/errors';

/** Most items one `;`-separated list (categories, entities) or repeated parameter (`mention`) may carry. */
export const MAX_LIST_ITEMS = 20;

/**
 * The parts, or a 422 naming the parameter when there are more than `max`. `how` says how the values
 * are given (`separated by ';'`, `separated by ','`, `repeated`).
 */
export function capList<T>(parts: T[], name: string, max = MAX_LIST_ITEMS, how = "separated by ';'"): T[] {
  if (parts.length > max) {
    throw invalid(['query', name], `At most ${max} values ${how} (got ${parts.length})`, 'too_long');
  }
  return parts;
}

/** The OpenAPI wording of a cap, appended to each list parameter's description. */
export const capNote = (max: number) => ` At most ${max} values (more is 422).`;
export const LIST_CAP_NOTE = capNote(MAX_LIST_ITEMS);
