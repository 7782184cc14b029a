// Tracking-list reads. Every query takes the caller's project id.
import { type GetColumnData, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import type { ListKind, Plan } from '../../shared/db/schema';
import { projects } from '../../shared/db/schema/accounts';
import { articles, publishers } from '../../shared/db/schema/content';
import { mentionMatches, trackingListItems, trackingLists } from '../../shared/db/schema/tracking';

export interface ListRow {
  id: string;
  kind: ListKind;
  name: string;
  color_index: number;
  item_count: number;
  created_at: Date;
  updated_at: Date;
  countries: string[];
  langs: string[];
  search_scope: string;
  match_types: string[];
  active: boolean;
  matches_count: number | null;
  new_publications_24h: number | null;
  last_scanned_at: Date | null;
  next_scan_at: Date | null;
  scan_status: string | null;
  scan_error: string | null;
  extraction_started_at: Date | null;
}

/** A list `l`, its items `i`, their matches `m`, the project `p`, the articles `a`, the publishers `pub` (`p` in the video check). */
const l = alias(trackingLists, 'l');
const i = alias(trackingListItems, 'i');
const m = alias(mentionMatches, 'm');
const p = alias(projects, 'p');
const a = alias(articles, 'a');
const pub = alias(publishers, 'p');

const listColumns = (
  now: Date,
) => sql`${l.id}, ${l.kind}, ${l.name}, ${l.colorIndex}, ${l.createdAt}, ${l.updatedAt}, ${l.countries}, ${l.langs},
  ${l.searchScope}, ${l.matchTypes}, ${l.active}, ${l.lastScannedAt}, ${l.nextScanAt}, ${l.scanStatus}, ${l.scanError},
  ${l.extractionStartedAt},
  (SELECT count(*) FROM ${trackingListItems} ${i} WHERE ${i.listId} = ${l.id})::int AS item_count,
  CASE WHEN ${l.kind} = 'mention' THEN (SELECT count(DISTINCT ${m.urlId}) FROM ${mentionMatches} ${m} WHERE ${m.listId} = ${l.id}) END::int AS matches_count,
  CASE WHEN ${l.kind} = 'mention' THEN (SELECT count(DISTINCT ${m.urlId}) FROM ${mentionMatches} ${m} JOIN ${articles} ${a} ON ${a.id} = ${m.urlId}
    WHERE ${m.listId} = ${l.id} AND ${a.firstSeenAt} >= ${now.toISOString()}::timestamptz - interval '24 hours') END::int AS new_publications_24h`;

export async function listLists(db: Db, projectId: string, now: Date, kind: ListKind | undefined, limit: number, offset: number) {
  const k = kind ?? null;
  const [rows, [{ total }]] = await Promise.all([
    sqlRows<ListRow>(
      db,
      sql`SELECT ${listColumns(now)} FROM ${trackingLists} ${l} WHERE ${l.projectId} = ${projectId} AND (${k}::text IS NULL OR ${l.kind} = ${k})
       ORDER BY ${l.updatedAt} DESC, ${l.id} LIMIT ${limit} OFFSET ${offset}`,
    ),
    sqlRows<{ total: number }>(
      db,
      sql`SELECT count(*)::int AS total FROM ${trackingLists} WHERE ${trackingLists.projectId} = ${projectId} AND (${k}::text IS NULL OR ${trackingLists.kind} = ${k})`,
    ),
  ]);
  return { rows, total };
}

export async function getList(db: Db, projectId: string, listId: string, now: Date): Promise<ListRow | undefined> {
  const [row] = await sqlRows<ListRow>(
    db,
    sql`SELECT ${listColumns(now)} FROM ${trackingLists} ${l} WHERE ${l.projectId} = ${projectId} AND ${l.id} = ${listId}`,
  );
  return row;
}

/**
 * Items used per kind, and the project's plan (the caps come from the project read, not from the key:
 * an internal key naming a project sees that project's caps). `plan` is null for an unknown project.
 */
export async function usedPerKind(db: Db, projectId: string): Promise<{ plan: Plan | null; used: Map<string, number> }> {
  const rows = await sqlRows<{ plan: Plan; kind: string | null; used: number }>(
    db,
    sql`SELECT ${p.plan}, ${l.kind}, CASE WHEN ${l.kind} = 'mention' THEN count(DISTINCT lower(${i.rawText})) ELSE count(DISTINCT ${i.key}) END::int AS used
     FROM ${projects} ${p}
     LEFT JOIN ${trackingLists} ${l} ON ${l.projectId} = ${p.id}
     LEFT JOIN ${trackingListItems} ${i} ON ${i.listId} = ${l.id}
     WHERE ${p.id} = ${projectId} GROUP BY ${p.plan}, ${l.kind}`,
  );
  return { plan: rows[0]?.plan ?? null, used: new Map(rows.filter((r) => r.kind !== null).map((r) => [r.kind!, r.used])) };
}

export interface ItemRow {
  id: string;
  key: string;
  name: string;
  type: string | null;
  added_at: Date;
  raw_text: string | null;
  match_type: 'broad' | 'phrase' | 'exact' | null;
  position: number | null;
  matches_count: number;
}

/** Items newest added first (ties: list position, then key); none for another project's list. */
export function listItems(db: Db, projectId: string, listId: string, limit: number | null = null, offset = 0) {
  return sqlRows<ItemRow>(
    db,
    sql`SELECT ${i.id}, ${i.key}, ${i.name}, ${i.type}, ${i.addedAt}, ${i.rawText}, ${i.matchType}, ${i.position},
       (SELECT count(DISTINCT ${m.urlId}) FROM ${mentionMatches} ${m} WHERE ${m.termId} = ${i.id})::int AS matches_count
     FROM ${trackingListItems} ${i} WHERE ${i.listId} = ${listId}
       AND EXISTS (SELECT 1 FROM ${trackingLists} ${l} WHERE ${l.id} = ${listId} AND ${l.projectId} = ${projectId})
     ORDER BY ${i.addedAt} DESC, ${i.position} NULLS LAST, ${i.key} LIMIT ${limit} OFFSET ${offset}`,
  );
}

/** A video publisher among a publisher list's items (its name; undefined when there is none), for the plan's video gate. */
export async function videoPublisher(db: Db, listId: string): Promise<GetColumnData<typeof publishers.name> | undefined> {
  const [row] = await sqlRows<{ name: GetColumnData<typeof publishers.name> }>(
    db,
    sql`SELECT ${pub.name} FROM ${trackingListItems} ${i} JOIN ${publishers} ${pub} ON ${pub.domain} = ${i.key} WHERE ${i.listId} = ${listId} AND ${pub.isVideo} LIMIT 1`,
  );
  return row?.name;
}
