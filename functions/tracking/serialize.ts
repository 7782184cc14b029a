// Tracking-list rows as the spec shapes them.
import { cabinetUrl, iso } from '../../shared/format';
import type { ResolvedItem } from './items';
import type { PublicationRow } from './matches-query';
import type { ItemRow, ListRow } from './queries';

export function toListRow(row: ListRow) {
  const base = {
    id: row.id,
    kind: row.kind,
    name: row.name,
    color_index: row.color_index,
    item_count: row.item_count,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
  if (row.kind !== 'mention') return base;
  return {
    ...base,
    countries: row.countries.map((c) => c.toUpperCase()),
    langs: row.langs.map((l) => l.toUpperCase()),
    search_scope: row.search_scope,
    match_types: row.match_types,
    active: row.active,
    matches_count: row.matches_count ?? 0,
    new_publications_24h: row.new_publications_24h ?? 0,
    last_scanned_at: iso(row.last_scanned_at),
    next_scan_at: iso(row.next_scan_at),
    scan_status: row.scan_status,
    scan_error: row.scan_error,
  };
}

/** A detail item, named as its key resolves (`resolvedItems`); the stored type first, else the resolved one. */
export function toItem({ item, name, resolvedType }: ResolvedItem) {
  return { key: item.key, name, type: item.type ?? resolvedType, added_at: iso(item.added_at) };
}

export function toTerm(item: ItemRow) {
  return {
    id: item.id,
    raw_text: item.raw_text!,
    match_type: item.match_type!,
    position: item.position!,
    matches_count: item.matches_count,
    added_at: iso(item.added_at),
  };
}

/** One entry of `publications` (also the `publication` of a match stream's event). */
export const publicationOf = (p: PublicationRow, appUrl: string, snippet: string) => ({
  id: p.id,
  url: p.url,
  cabinet_url: cabinetUrl(appUrl, 'article', p.id),
  title: p.title,
  publisher: p.publisher,
  domain: p.domain,
  country: p.country.toUpperCase(),
  lang: p.language.toUpperCase(),
  first_seen_at: iso(p.first_seen),
  article_first_seen_at: iso(p.article_first_seen_at),
  snippet,
});
