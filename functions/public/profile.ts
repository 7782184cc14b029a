// Rows to public results: the spec's field names, empty strings (not nulls) for what a domain
// without a profile lacks, followers as a human-readable string.
import { cabinetUrl } from '../../shared/format';
import type { ProfileRow, SearchRow } from './queries';

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

/** `999`, `1.2K`, `12.3K`, `1.2M`, `3B`; empty when unknown. */
export function formatFollowers(followers: number | null): string {
  return followers === null ? '' : compact.format(followers);
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
