// Tracking-list reads. Every query takes the caller's project id.
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import type { ListKind, Plan } from '../../shared/db/schema';

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

const LIST_COLUMNS = `l.id, l.kind, l.name, l.color_index, l.created_at, l.updated_at, l.countries, l.langs,
  l.search_scope, l.match_types, l.active, l.last_scanned_at, l.next_scan_at, l.scan_status, l.scan_error,
  l.extraction_started_at,
  (SELECT count(*) FROM tracking_list_items i WHERE i.list_id = l.id)::int AS item_count,
  CASE WHEN l.kind = 'mention' THEN (SELECT count(DISTINCT m.url_id) FROM mention_matches m WHERE m.list_id = l.id) END::int AS matches_count,
  CASE WHEN l.kind = 'mention' THEN (SELECT count(DISTINCT m.url_id) FROM mention_matches m JOIN articles a ON a.id = m.url_id
    WHERE m.list_id = l.id AND a.first_seen_at >= $2::timestamptz - interval '24 hours') END::int AS new_publications_24h`;

export async function listLists(db: Db, projectId: string, now: Date, kind: ListKind | undefined, limit: number, offset: number) {
  const [rows, [{ total }]] = await Promise.all([
    queryRows<ListRow>(
      db,
      `SELECT ${LIST_COLUMNS} FROM tracking_lists l WHERE l.project_id = $1 AND ($3::text IS NULL OR l.kind = $3)
       ORDER BY l.updated_at DESC, l.id LIMIT $4 OFFSET $5`,
      [projectId, now.toISOString(), kind ?? null, limit, offset],
    ),
    queryRows<{ total: number }>(
      db,
      `SELECT count(*)::int AS total FROM tracking_lists WHERE project_id = $1 AND ($2::text IS NULL OR kind = $2)`,
      [projectId, kind ?? null],
    ),
  ]);
  return { rows, total };
}

export async function getList(db: Db, projectId: string, listId: string, now: Date): Promise<ListRow | undefined> {
  const [row] = await queryRows<ListRow>(db, `SELECT ${LIST_COLUMNS} FROM tracking_lists l WHERE l.project_id = $1 AND l.id = $3`, [
    projectId,
    now.toISOString(),
    listId,
  ]);
  return row;
}

/** Tracked items per kind across the project's lists (mention lists: distinct keywords). */
/**
 * Items used per kind, and the project's plan (the caps come from the project read, not from the key:
 * an internal key naming a project sees that project's caps). `plan` is null for an unknown project.
 */
export async function usedPerKind(db: Db, projectId: string): Promise<{ plan: Plan | null; used: Map<string, number> }> {
  const rows = await queryRows<{ plan: Plan; kind: string | null; used: number }>(
    db,
    `SELECT p.plan, l.kind, CASE WHEN l.kind = 'mention' THEN count(DISTINCT lower(i.raw_text)) ELSE count(DISTINCT i.key) END::int AS used
     FROM projects p
     LEFT JOIN tracking_lists l ON l.project_id = p.id
     LEFT JOIN tracking_list_items i ON i.list_id = l.id
     WHERE p.id = $1 GROUP BY p.plan, l.kind`,
    [projectId],
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
  return queryRows<ItemRow>(
    db,
    `SELECT i.id, i.key, i.name, i.type, i.added_at, i.raw_text, i.match_type, i.position,
       (SELECT count(DISTINCT m.url_id) FROM mention_matches m WHERE m.term_id = i.id)::int AS matches_count
     FROM tracking_list_items i WHERE i.list_id = $1
       AND EXISTS (SELECT 1 FROM tracking_lists l WHERE l.id = $1 AND l.project_id = $4)
     ORDER BY i.added_at DESC, i.position NULLS LAST, i.key LIMIT $2 OFFSET $3`,
    [listId, limit, offset, projectId],
  );
}
