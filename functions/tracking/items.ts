// Resolves list items to the roll-ups' dimension keys (spec "Kinds and item keys").
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import type { DimensionKind, ListKind } from '../../shared/db/schema';
import type { ItemRow } from './queries';

export interface ResolvedItem {
  item: ItemRow;
  /** Key in url_dimensions; null when the item resolves to nothing (zero-filled row). */
  dimKey: string | null;
  resolvedId: string | null;
  resolvedType: string | null;
  name: string;
  /** Trend lists: the trend's lifecycle state. */
  state: string | null;
}

export const DIMENSION_OF: Record<ListKind, DimensionKind> = {
  entity: 'entity', category: 'category', publisher: 'publisher', trend: 'trend', mention: 'term',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Known {
  key: string;
  id: string;
  name: string;
  type: string | null;
  state: string | null;
}

/**
 * Entity keys are an entity id, or a plain name (lists built before resolution) matched by normalized
 * name. Two indexed lookups: an OR across both in one join would defeat both indexes.
 */
export function knownEntities(db: Db, keys: string[]) {
  const ids = keys.filter((k) => UUID.test(k.trim())).map((k) => k.trim().toLowerCase());
  const names = keys.filter((k) => !UUID.test(k.trim()));
  return queryRows<Known>(
    db,
    `SELECT e.id::text AS key, e.id::text AS id, e.name, e.entity_types[1] AS type, NULL AS state FROM entities e WHERE e.id = ANY($1::uuid[])
     UNION ALL
     SELECT k.key, e.id::text, e.name, e.entity_types[1], NULL FROM unnest($2::text[]) AS k(key)
     JOIN entities e ON e.normalized_name = lower(trim(k.key))`,
    [ids, names],
  );
}

function knownTrends(db: Db, keys: string[]) {
  return queryRows<Known>(
    db,
    `SELECT t.id::text AS key, t.id::text AS id, t.label AS name, NULL AS type, t.state FROM trends t WHERE t.id = ANY($1::uuid[])`,
    [keys.filter((k) => UUID.test(k))],
  );
}

function knownPublishers(db: Db, keys: string[]) {
  return queryRows<Known>(
    db,
    `SELECT k.key, k.key AS id, coalesce(p.name, (SELECT a.publisher FROM articles a WHERE a.domain = k.key LIMIT 1)) AS name, NULL AS type, NULL AS state
     FROM unnest($1::text[]) AS k(key) LEFT JOIN publishers p ON p.domain = k.key
     WHERE p.domain IS NOT NULL OR EXISTS (SELECT 1 FROM articles a WHERE a.domain = k.key)`,
    [keys],
  );
}

function knownCategories(db: Db, keys: string[]) {
  return queryRows<Known>(
    db,
    `SELECT DISTINCT ac.name AS key, ac.name AS id, ac.name, NULL AS type, NULL AS state FROM article_categories ac WHERE ac.name = ANY($1::text[])`,
    [keys],
  );
}

export async function resolveItems(db: Db, kind: ListKind, items: ItemRow[]): Promise<ResolvedItem[]> {
  if (kind === 'mention') {
    return items.map((item) => ({ item, dimKey: item.id, resolvedId: item.id, resolvedType: null, name: item.raw_text ?? item.name, state: null }));
  }
  const keys = items.map((i) => i.key);
  const lookup = { entity: knownEntities, trend: knownTrends, publisher: knownPublishers, category: knownCategories }[kind];
  const known = new Map((await lookup(db, keys)).map((k) => [k.key, k]));
  return items.map((item) => {
    const hit = known.get(item.key) ?? known.get(item.key.trim().toLowerCase());
    return {
      item,
      dimKey: hit?.id ?? null,
      resolvedId: hit?.id ?? null,
      resolvedType: hit?.type ?? null,
      // The name of what the key resolved to (an entity id shows the entity's name, not the id); a
      // category's name is its path; an unknown key keeps the stored name.
      name: kind === 'category' ? item.name : (hit?.name ?? item.name),
      state: hit?.state ?? null,
    };
  });
}
