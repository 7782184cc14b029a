// Checks that need the database, run at the start of a batch transaction before any write:
// natural-key conflicts and references. A reference is satisfied by a row already stored or by a
// valid line of the target type EARLIER in the input; checking before writing keeps the verdict
// independent of the batch size (a later line in the same batch does not count).
import type { RecordOf, RecordType } from '../format/records';
import { RECORD_TYPES } from '../format/records';
import { reject, type BatchContext, type Item } from './types';

interface RefSpec {
  from: RecordType;
  to: RecordType;
  what: string;
  key: (r: never) => string[] | null;
  toKey: (r: never) => string[];
  table: string;
  cols: string[];
  types: string[];
}

function ref<F extends RecordType, T extends RecordType>(spec: {
  from: F;
  to: T;
  what: string;
  key: (r: RecordOf<F>) => string[] | null;
  toKey: (r: RecordOf<T>) => string[];
  table: string;
  cols: string[];
  types: string[];
}): RefSpec {
  return spec as unknown as RefSpec;
}

const byId = { toKey: (r: { id: string }) => [r.id], cols: ['id'], types: ['uuid'] };
const country = {
  to: 'country' as const,
  toKey: (r: RecordOf<'country'>) => [r.alpha_2],
  table: 'countries',
  cols: ['alpha_2'],
  types: ['text'],
};

const REFS: RefSpec[] = [
  ref({ from: 'city', what: 'country', key: (r) => [r.country], ...country }),
  ref({ from: 'discover_profile', what: 'country', key: (r) => [r.country], ...country }),
  ref({
    from: 'discover_profile',
    to: 'city',
    what: 'city',
    key: (r) => (r.city === null ? null : [r.country, r.city]),
    toKey: (r) => [r.country, r.name],
    table: 'cities',
    cols: ['country_code', 'name'],
    types: ['text', 'text'],
  }),
  ref({ from: 'observation', to: 'article', what: 'url_id', key: (r) => [r.url_id], table: 'articles', ...byId }),
  ref({
    from: 'trend',
    to: 'hierarchy_node',
    what: 'topic_id',
    key: (r) => (r.topic_id ? [r.topic_id] : null),
    table: 'hierarchy_nodes',
    ...byId,
  }),
  ref({ from: 'trend_article', to: 'trend', what: 'trend_id', key: (r) => [r.trend_id], table: 'trends', ...byId }),
  ref({ from: 'trend_article', to: 'article', what: 'url_id', key: (r) => [r.url_id], table: 'articles', ...byId }),
  ref({ from: 'trend_edge', to: 'trend', what: 'parent_id', key: (r) => [r.parent_id], table: 'trends', ...byId }),
  ref({ from: 'trend_edge', to: 'trend', what: 'child_id', key: (r) => [r.child_id], table: 'trends', ...byId }),
  ref({ from: 'tracking_list', to: 'project', what: 'project_id', key: (r) => [r.project_id], table: 'projects', ...byId }),
  ref({ from: 'tracking_list_item', to: 'tracking_list', what: 'list_id', key: (r) => [r.list_id], table: 'tracking_lists', ...byId }),
].sort((a, b) => RECORD_TYPES.indexOf(a.from) - RECORD_TYPES.indexOf(b.from));

const k = (parts: string[]) => parts.join('\u0001');

async function existing(ctx: BatchContext, spec: RefSpec, keys: string[][]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const params = spec.types.map((t, i) => `$${i + 1}::${t}[]`).join(', ');
  // LATERAL + LIMIT 1: one index probe per key, never a scan of the (large) target table.
  const res = await ctx.db.query<Record<string, unknown>>(
    `SELECT ${spec.cols.map((c) => `k.${c}::text AS ${c}`).join(', ')}
     FROM unnest(${params}) AS k(${spec.cols.join(', ')})
     CROSS JOIN LATERAL (SELECT 1 FROM ${spec.table} t WHERE ${spec.cols.map((c) => `t.${c} = k.${c}`).join(' AND ')} LIMIT 1) hit`,
    spec.cols.map((_, i) => keys.map((key) => key[i])),
  );
  return new Set(res.rows.map((row) => k(spec.cols.map((c) => String(row[c])))));
}

async function checkReference(ctx: BatchContext, spec: RefSpec): Promise<void> {
  const items = ctx.groups[spec.from] as Item[];
  if (items.length === 0) return;
  const firstLine = new Map<string, number>();
  for (const t of ctx.groups[spec.to] as Item[]) {
    const key = k((spec.toKey as (r: unknown) => string[])(t.record));
    if (!firstLine.has(key)) firstLine.set(key, t.line);
  }
  const pending = new Map<Item, string>();
  for (const item of items) {
    const parts = (spec.key as (r: unknown) => string[] | null)(item.record);
    if (parts === null) continue;
    const key = k(parts);
    const line = firstLine.get(key);
    if (line === undefined || line > item.line) pending.set(item, key);
  }
  const unique = [...new Set(pending.values())];
  const found = await existing(
    ctx,
    spec,
    unique.map((u) => u.split('\u0001')),
  );
  const bad = new Map<Item, string>();
  for (const [item, key] of pending) {
    if (!found.has(key))
      bad.set(item, `unknown ${spec.what} ${key.replace('\u0001', '/')}: no ${spec.to} with it in the database or earlier in the input`);
  }
  reject(ctx, spec.from, bad as Map<Item<RecordType>, string>);
}

/** An article id keeps its URL unique: a second id for a stored URL is refused, not merged. */
async function checkArticleUrls(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.article;
  if (items.length === 0) return;
  const res = await ctx.db.query<{ id: string; url: string }>('SELECT id::text AS id, url FROM articles WHERE url = ANY($1::text[])', [
    [...new Set(items.map((i) => i.record.url))],
  ]);
  const owner = new Map(res.rows.map((r) => [r.url, r.id]));
  const bad = new Map<Item<'article'>, string>();
  for (const item of items) {
    const id = owner.get(item.record.url);
    if (id === undefined) owner.set(item.record.url, item.record.id);
    else if (id !== item.record.id) bad.set(item, `url already belongs to article ${id}`);
  }
  reject(ctx, 'article', bad);
}

/** kg_id is unique across entities; an entity line may not take another name's kg_id. */
async function checkEntityKgIds(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.entity.filter((i) => i.record.kg_id !== null);
  if (items.length === 0) return;
  const res = await ctx.db.query<{ kg_id: string; normalized_name: string }>(
    'SELECT kg_id, normalized_name FROM entities WHERE kg_id = ANY($1::text[])',
    [[...new Set(items.map((i) => i.record.kg_id as string))]],
  );
  const owner = new Map(res.rows.map((r) => [r.kg_id, r.normalized_name]));
  const bad = new Map<Item<'entity'>, string>();
  for (const item of items) {
    const name = normalizedName(item.record.name);
    const kg = item.record.kg_id as string;
    const current = owner.get(kg);
    if (current === undefined) owner.set(kg, name);
    else if (current !== name) bad.set(item, `kg_id ${kg} already belongs to entity "${current}"`);
  }
  reject(ctx, 'entity', bad);
}

/** The entity dedup and lookup key (the API matches names the same way). */
export function normalizedName(name: string): string {
  return name.trim().toLowerCase();
}

export async function precheck(ctx: BatchContext): Promise<void> {
  await checkArticleUrls(ctx);
  await checkEntityKgIds(ctx);
  for (const spec of REFS) await checkReference(ctx, spec);
}
