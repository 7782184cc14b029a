// Resolves list items to the roll-ups' dimension keys, per kind (what an item resolved to is its row's
// `resolved_id`: docs/TRACKING.md "Metrics rows"), in the database:
// a page of items with what each resolves to is one statement, and the reads of a metrics page or a
// roll-up name the same page's keys in SQL (`pageKeys`), so they need not wait for it.
import { type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import type { DimensionKind, ListKind } from '../../shared/db/schema';
import { articleCategories, articles, entities, publishers } from '../../shared/db/schema/content';
import { mentionMatches, trackingListItems } from '../../shared/db/schema/tracking';
import { trends } from '../../shared/db/schema/trends';
import type { DerivedKeys } from '../../shared/rollups/scope';
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
  entity: 'entity',
  category: 'category',
  publisher: 'publisher',
  trend: 'trend',
  mention: 'term',
};

const UUID = sql.raw(`'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'`);

/**
 * The items `i` of a page (the table's columns, read in a derived table of the same name and columns),
 * their matches `m`, and what they resolve to: entities `e`, trends `t`, publishers `p`, articles `a`,
 * categories `ac`.
 */
const i = alias(trackingListItems, 'i');
const m = alias(mentionMatches, 'm');
const e = alias(entities, 'e');
const t = alias(trends, 't');
const p = alias(publishers, 'p');
const a = alias(articles, 'a');
const ac = alias(articleCategories, 'ac');

/** An article of the item's domain (a publisher known only from its articles). */
const articleOfDomain = sql`SELECT ${a.publisher} FROM ${articles} ${a} WHERE ${a.domain} = ${i.key} LIMIT 1`;

/**
 * Per kind, what an item `i` resolves to (`r`: dim_key, resolved_type, resolved_name, state), each
 * through an index. Entity keys are an entity id, or a plain name (lists built before resolution)
 * matched by normalized name: two lookups, as an OR across both would defeat both indexes. A
 * category's name is its path; a mention term is its own key.
 */
const RESOLVE: Record<ListKind, SQL> = {
  entity: sql`LEFT JOIN LATERAL (
      (SELECT ${e.id}::text AS dim_key, ${e.entityTypes}[1] AS resolved_type, ${e.name} AS resolved_name, NULL::text AS state
       FROM ${entities} ${e} WHERE ${e.id} = CASE WHEN trim(${i.key}) ~* ${UUID} THEN trim(${i.key})::uuid END)
      UNION ALL
      (SELECT ${e.id}::text, ${e.entityTypes}[1], ${e.name}, NULL FROM ${entities} ${e}
       WHERE trim(${i.key}) !~* ${UUID} AND ${e.normalizedName} = lower(trim(${i.key})) ORDER BY ${e.id} LIMIT 1)
      LIMIT 1) r ON true`,
  trend: sql`LEFT JOIN LATERAL (
      SELECT ${t.id}::text AS dim_key, NULL::text AS resolved_type, ${t.label} AS resolved_name, ${t.state}::text AS state
      FROM ${trends} ${t} WHERE ${t.id} = CASE WHEN ${i.key} ~* ${UUID} THEN ${i.key}::uuid END) r ON true`,
  publisher: sql`LEFT JOIN LATERAL (
      SELECT ${i.key} AS dim_key, NULL::text AS resolved_type,
        coalesce(${p.name}, (${articleOfDomain})) AS resolved_name, NULL::text AS state
      FROM (SELECT 1) one LEFT JOIN ${publishers} ${p} ON ${p.domain} = ${i.key}
      WHERE ${p.domain} IS NOT NULL OR EXISTS (SELECT 1 FROM ${articles} ${a} WHERE ${a.domain} = ${i.key})) r ON true`,
  category: sql`LEFT JOIN LATERAL (
      SELECT ${i.key} AS dim_key, NULL::text AS resolved_type, NULL::text AS resolved_name, NULL::text AS state
      WHERE EXISTS (SELECT 1 FROM ${articleCategories} ${ac} WHERE ${ac.name} = ${i.key})) r ON true`,
  mention: sql`LEFT JOIN LATERAL (
      SELECT ${i.id}::text AS dim_key, NULL::text AS resolved_type, ${i.rawText} AS resolved_name, NULL::text AS state) r ON true`,
};

const ORDER = sql`ORDER BY ${i.addedAt} DESC, ${i.position} NULLS LAST, ${i.key}`;

/** A page of the list's items (all when `limit` is null), newest added first, resolved. */
const page = (kind: ListKind, listId: string, limit: number | null, offset: number, counts: boolean) => sql`
  SELECT i.*, r.dim_key, r.resolved_type, r.resolved_name, r.state
  FROM (SELECT ${i.id}, ${i.key}, ${i.name}, ${i.type}, ${i.addedAt}, ${i.rawText}, ${i.matchType}, ${i.position}
          ${counts ? sql`, (SELECT count(DISTINCT ${m.urlId}) FROM ${mentionMatches} ${m} WHERE ${m.termId} = ${i.id})::int AS matches_count` : sql``}
        FROM ${trackingListItems} ${i} WHERE ${i.listId} = ${listId}::uuid ${ORDER} LIMIT ${limit}::int OFFSET ${offset}::int) i
  ${RESOLVE[kind]}
  ${ORDER}`;

interface PageRow extends ItemRow {
  dim_key: string | null;
  resolved_type: string | null;
  resolved_name: string | null;
  state: string | null;
}

export interface ListRef {
  id: string;
  kind: ListKind;
}

/** The items (a page of them, or all when `limit` is null), each with what its key resolves to. */
export async function resolvedItems(db: Db, list: ListRef, limit: number | null = null, offset = 0): Promise<ResolvedItem[]> {
  const rows = await sqlRows<PageRow>(db, page(list.kind, list.id, limit, offset, true));
  return rows.map(({ dim_key, resolved_type, resolved_name, state, ...item }) => ({
    item,
    dimKey: dim_key,
    resolvedId: dim_key,
    resolvedType: resolved_type,
    name: resolved_name ?? item.name,
    state,
  }));
}

/** The distinct dimension keys of the same items, for reads that run beside `resolvedItems`. */
export function pageKeys(list: ListRef, limit: number | null = null, offset = 0): DerivedKeys {
  return {
    sql: sql`SELECT coalesce(array_agg(DISTINCT p.dim_key) FILTER (WHERE p.dim_key IS NOT NULL), '{}')
      FROM (${page(list.kind, list.id, limit, offset, false)}) p`,
  };
}
