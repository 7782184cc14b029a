// Mention matching (docs/TRACKING.md "Matching"). The SQL index finds candidates; these functions
// decide, precisely and the same way everywhere:
// - broad: every word of the keyword occurs as a whole word, in any order, ignoring case and accents;
// - phrase: the words occur consecutively and in order (any non-word characters between), ignoring case and accents;
// - exact: the keyword occurs verbatim (case and accents as written) on word boundaries.
import type { MatchType } from '../db/schema';

/** Same table as the SQL function search_norm (drizzle/0002_search.sql): one character for one. */
const FOLD_FROM = 'áàâäãåāăąçćčďéèêëēėęěíìîïīįıñńňóòôöõøōőřśšşßťúùûüūůűųýÿźžż';
const FOLD_TO = 'aaaaaaaaacccdeeeeeeeeiiiiiiinnnoooooooorsssstuuuuuuuuyyzzz';
const FOLD: ReadonlyMap<string, string> = new Map([...FOLD_FROM].map((c, i) => [c, FOLD_TO[i]]));

/** Lower-case and strip accents, keeping every index in place (one character for one). */
export function fold(text: string): string {
  let out = '';
  for (const ch of text) {
    const lower = ch.toLowerCase();
    out += lower.length === ch.length ? (FOLD.get(lower) ?? lower) : ch;
  }
  return out;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const WORD_EDGE_BEFORE = '(?<![\\p{L}\\p{N}])';
const WORD_EDGE_AFTER = '(?![\\p{L}\\p{N}])';
export const words = (keyword: string) =>
  fold(keyword)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

export interface Hit {
  index: number;
  length: number;
}

export function findMatch(text: string, keyword: string, matchType: MatchType): Hit | null {
  if (!text || !keyword.trim()) return null;
  if (matchType === 'exact') {
    const m = new RegExp(WORD_EDGE_BEFORE + escapeRegExp(keyword.trim()) + WORD_EDGE_AFTER, 'u').exec(text);
    return m ? { index: m.index, length: m[0].length } : null;
  }
  const folded = fold(text);
  const parts = words(keyword);
  if (parts.length === 0) return null;
  if (matchType === 'phrase') {
    const m = new RegExp(WORD_EDGE_BEFORE + parts.map(escapeRegExp).join('[^\\p{L}\\p{N}]+') + WORD_EDGE_AFTER, 'u').exec(folded);
    return m ? { index: m.index, length: m[0].length } : null;
  }
  let first: Hit | null = null;
  for (const part of parts) {
    const m = new RegExp(WORD_EDGE_BEFORE + escapeRegExp(part) + WORD_EDGE_AFTER, 'u').exec(folded);
    if (!m) return null;
    if (!first || m.index < first.index) first = { index: m.index, length: m[0].length };
  }
  return first;
}

/** About `radius` characters either side of the hit, cut at spaces, with ellipses. */
export function snippet(text: string, hit: Hit, radius = 60): string {
  let start = Math.max(0, hit.index - radius);
  let end = Math.min(text.length, hit.index + hit.length + radius);
  if (start > 0) start = text.indexOf(' ', start) + 1 || start;
  if (end < text.length) end = text.lastIndexOf(' ', end) > hit.index + hit.length ? text.lastIndexOf(' ', end) : end;
  return `${start > 0 ? '…' : ''}${text.slice(start, end).trim()}${end < text.length ? '…' : ''}`;
}
