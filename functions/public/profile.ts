// Rows to public results: the spec's field names, empty strings (not nulls) for what a domain
// without a profile lacks, followers as a human-readable string.
import { cabinetUrl } from '../../shared/format';
import type { ProfileRow, SearchRow } from './queries';

/** Compact units, smallest first: what `Intl.NumberFormat('en', { notation: 'compact' })` writes. */
const UNITS: [number, string][] = [
  [1e3, 'K'],
  [1e6, 'M'],
  [1e9, 'B'],
  [1e12, 'T'],
];

/**
 * `n / size` rounded half up to one decimal, from integers (ties are exact), with `,` between
 * thousands from five digits on (compact notation's minimum grouping).
 */
function scaled(n: number, size: number): string {
  const tenths = Math.round((n * 10) / size);
  const digits = String(Math.floor(tenths / 10));
  const whole = digits.length < 5 ? digits : digits.replace(/\B(?=(\d{3})+$)/g, ',');
  return tenths % 10 ? `${whole}.${tenths % 10}` : whole;
}

/**
 * `999`, `1.2K`, `12.3K`, `1.2M`, `3B`; empty when unknown. What `Intl.NumberFormat('en',
 * { notation: 'compact', maximumFractionDigits: 1 })` writes for a count (tests/node/followers.test.ts),
 * by hand: building that formatter was a large part of a public Worker's first request (docs/PERFORMANCE.md
 * "The first request").
 */
export function formatFollowers(followers: number | null): string {
  if (followers === null) return '';
  let unit = -1;
  while (unit + 1 < UNITS.length && followers >= UNITS[unit + 1]![0]) unit++;
  // Rounding can reach the next unit (999,950 is 1M, not 1,000K).
  if (unit < UNITS.length - 1 && Math.round((followers * 10) / (unit < 0 ? 1 : UNITS[unit]![0])) >= 10_000) unit++;
  return unit < 0 ? scaled(followers, 1) : `${scaled(followers, UNITS[unit]![0])}${UNITS[unit]![1]}`;
}

function profileFields(row: Omit<ProfileRow, 'recent'>, appUrl: string) {
  const exists = row.profile_title !== null;
  return {
    domain: row.domain,
    profileUrl: exists ? cabinetUrl(appUrl, 'publisher', row.domain) : '',
    knowledgeGraphId: row.kg_id ?? '',
    exists,
    title: row.profile_title ?? '',
    totalFollowers: exists ? formatFollowers(row.followers) : '',
  };
}

export function toResult(row: ProfileRow, appUrl: string) {
  return { ok: true as const, ...profileFields(row, appUrl), recentPublications: row.recent };
}

export function toMatch(row: SearchRow, appUrl: string) {
  return {
    ...profileFields(row, appUrl),
    match: { reason: row.reason, matched: row.matched, score: row.score, reasons: row.reasons },
  };
}
