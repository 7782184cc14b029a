// Publishers and knowledge-graph entities (the records; article-derived rows are in write-articles).
import { normalizedName } from './precheck';
import { textArrayColumn, pgArray, upsert, type UpsertSpec } from './sql';
import { tally, type BatchContext } from './types';

const PUBLISHERS: UpsertSpec = {
  table: 'publishers',
  key: ['domain'],
  columns: [
    { name: 'domain', type: 'text' },
    { name: 'name', type: 'text' },
    { name: 'favicon_url', type: 'text' },
    { name: 'kg_id', type: 'text' },
    { name: 'is_video', type: 'bool' },
    { name: 'profile_title', type: 'text' },
    { name: 'followers', type: 'int8' },
  ],
};

/**
 * Entity ids are derived from the normalized name (md5 shaped as an RFC 9562 version-8 UUID), so
 * reloading into an empty database gives the same ids and tracking lists keyed by entity id survive.
 */
export function entityIdSql(normalized: string): string {
  const h = `md5('entity:' || ${normalized})`;
  return `(substr(${h}, 1, 12) || '8' || substr(${h}, 14, 3) || '8' || substr(${h}, 18, 15))::uuid`;
}

const ENTITIES: UpsertSpec = {
  table: 'entities',
  key: ['normalized_name'],
  columns: [
    { name: 'id', type: 'uuid', expr: `coalesce(s.id, ${entityIdSql('s.normalized_name')})`, update: false },
    { name: 'name', type: 'text' },
    { name: 'normalized_name', type: 'text' },
    textArrayColumn('entity_types'),
    { name: 'wikipedia_url', type: 'text' },
    { name: 'kg_id', type: 'text' },
    { name: 'kg_name', type: 'text' },
    { name: 'kg_description', type: 'text' },
    { name: 'kg_image_url', type: 'text' },
  ],
};

export async function writePublishers(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.publisher;
  const res = await upsert(
    ctx.db,
    PUBLISHERS,
    items.map((i) => i.record),
  );
  tally(ctx, 'publisher', items.length, res.inserted, res.updated);
}

export async function writeEntities(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.entity;
  const rows = items.map(({ record: r }) => ({
    ...r,
    normalized_name: normalizedName(r.name),
    entity_types: pgArray(r.entity_types),
  }));
  const res = await upsert(ctx.db, ENTITIES, rows);
  tally(ctx, 'entity', items.length, res.inserted, res.updated);
}
