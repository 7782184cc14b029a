// Tenant-side fixtures: projects and their tracking lists/items. Plan flags, quotas and API keys
// are not part of the format (the admin module owns them); a project line leaves them untouched.
import { pgArray, textArrayColumn, upsert, type Column, type UpsertSpec } from './sql';
import { tally, type BatchContext } from './types';

const text = (name: string): Column => ({ name, type: 'text' });
const stamp = (name: string): Column => ({ name, type: 'timestamptz' });

const PROJECTS: UpsertSpec = {
  table: 'projects',
  key: ['id'],
  columns: [{ name: 'id', type: 'uuid' }, text('name'), text('plan'), textArrayColumn('countries'), textArrayColumn('categories')],
};

const LISTS: UpsertSpec = {
  table: 'tracking_lists',
  key: ['id'],
  columns: [
    { name: 'id', type: 'uuid' },
    { name: 'project_id', type: 'uuid' },
    text('kind'),
    text('name'),
    { name: 'color_index', type: 'int4' },
    stamp('created_at'),
    stamp('updated_at'),
    textArrayColumn('countries'),
    textArrayColumn('langs'),
    text('search_scope'),
    textArrayColumn('match_types'),
    { name: 'active', type: 'bool' },
    stamp('last_scanned_at'),
    stamp('next_scan_at'),
    text('scan_status'),
    text('scan_error'),
    stamp('extraction_started_at'),
  ],
};

const ITEMS: UpsertSpec = {
  table: 'tracking_list_items',
  key: ['list_id', 'key'],
  columns: [
    // Term ids are public (mention matches cite them): keep the first one, never regenerate it.
    { name: 'id', type: 'uuid', expr: 'coalesce(s.id, gen_random_uuid())', update: false },
    { name: 'list_id', type: 'uuid' },
    text('key'),
    text('name'),
    text('type'),
    stamp('added_at'),
    text('raw_text'),
    text('match_type'),
    { name: 'position', type: 'int4' },
  ],
};

export async function writeProjects(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.project;
  const rows = items.map(({ record: r }) => ({ ...r, countries: pgArray(r.countries), categories: pgArray(r.categories) }));
  const res = await upsert(ctx.db, PROJECTS, rows);
  tally(ctx, 'project', items.length, res.inserted, res.updated);
}

export async function writeTrackingLists(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.tracking_list;
  const rows = items.map(({ record: r }) => ({
    ...r,
    countries: pgArray(r.countries),
    langs: pgArray(r.langs),
    match_types: pgArray(r.match_types),
  }));
  const res = await upsert(ctx.db, LISTS, rows);
  tally(ctx, 'tracking_list', items.length, res.inserted, res.updated);
}

export async function writeTrackingListItems(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.tracking_list_item;
  const rows = items.map(({ record: r }) => ({ ...r, type: r.item_type }));
  const res = await upsert(ctx.db, ITEMS, rows);
  tally(ctx, 'tracking_list_item', items.length, res.inserted, res.updated);
}
