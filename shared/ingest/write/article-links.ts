// An article line carries its full category list and entity mentions: the stored sets are
// replaced (stale rows deleted, the rest upserted), so a corrected line never leaves leftovers;
// the article's top levels (article_tops) follow its categories.
import { writeArticleTops } from '../../db/write-plan-reads';
import { normalizedName } from './precheck';
import type { RecordOf } from '../format/records';
import { upsert, type UpsertSpec } from './sql';
import { derive, type BatchContext } from './types';
import { entityIdSql } from './content';

type Article = RecordOf<'article'>;

interface MentionRow {
  url_id: string;
  nn: string;
  name: string;
  type: string;
  kg_id: string | null;
  mentions: number;
  unified_score: number;
  embedding_similarity: number;
  source: string;
}

/** One row per (article, entity): the best-scored surface form wins, mention counts add up. */
function mentionRows(articles: readonly Article[]): MentionRow[] {
  const rows = new Map<string, MentionRow>();
  for (const a of articles) {
    for (const m of a.entities) {
      const nn = normalizedName(m.name);
      const key = `${a.id}\u0001${nn}`;
      const prev = rows.get(key);
      const row: MentionRow = { ...m, url_id: a.id, nn };
      if (prev) {
        const best = prev.unified_score >= row.unified_score ? prev : row;
        rows.set(key, { ...best, mentions: prev.mentions + row.mentions });
      } else {
        rows.set(key, row);
      }
    }
  }
  return [...rows.values()];
}

// Entities first met in a mention: created with what the mention knows; an existing entity (from
// an entity line or an earlier mention) is left alone. A kg_id already owned by another entity is
// dropped rather than failing the line.
const MENTIONED_ENTITIES = `
  INSERT INTO entities (id, name, normalized_name, entity_types, kg_id)
  SELECT ${entityIdSql('s.nn')}, s.name, s.nn, ARRAY[s.type],
         CASE WHEN EXISTS (SELECT 1 FROM entities e WHERE e.kg_id = s.kg_id) THEN NULL ELSE s.kg_id END
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS s(nn, name, type, kg_id)
  ON CONFLICT DO NOTHING
  RETURNING 1`;

const LINK_SOURCE = `s AS (
  SELECT s.*, e.id AS entity_id
  FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::int[], $6::float8[], $7::float8[], $8::text[])
    AS s(url_id, nn, name, type, mentions, unified_score, embedding_similarity, source)
  CROSS JOIN LATERAL (SELECT id FROM entities e WHERE e.normalized_name = s.nn LIMIT 1) e)`;

const DELETE_STALE_LINKS = `WITH ${LINK_SOURCE}
  DELETE FROM article_entities ae WHERE ae.url_id = ANY($9::uuid[])
    AND NOT EXISTS (SELECT 1 FROM s WHERE s.url_id = ae.url_id AND s.entity_id = ae.entity_id)
  RETURNING 1`;

const LINK_COLS = ['name', 'type', 'mentions', 'unified_score', 'embedding_similarity', 'source'];
const UPSERT_LINKS = `WITH ${LINK_SOURCE}
  INSERT INTO article_entities (url_id, entity_id, ${LINK_COLS.join(', ')})
  SELECT s.url_id, s.entity_id, ${LINK_COLS.map((c) => `s.${c}`).join(', ')} FROM s
  ON CONFLICT (url_id, entity_id) DO UPDATE SET ${LINK_COLS.map((c) => `${c} = excluded.${c}`).join(', ')}
  WHERE (${LINK_COLS.map((c) => `article_entities.${c}`).join(', ')}) IS DISTINCT FROM (${LINK_COLS.map((c) => `excluded.${c}`).join(', ')})
  RETURNING (xmax = 0) AS inserted`;

export async function writeArticleEntities(ctx: BatchContext, articles: readonly Article[]): Promise<void> {
  const rows = mentionRows(articles);
  const ids = articles.map((a) => a.id);

  const firstByName = new Map<string, MentionRow>();
  const kgClaimed = new Set<string>();
  for (const r of rows) {
    if (firstByName.has(r.nn)) continue;
    const kg = r.kg_id !== null && !kgClaimed.has(r.kg_id) ? r.kg_id : null;
    if (kg !== null) kgClaimed.add(kg);
    firstByName.set(r.nn, { ...r, kg_id: kg });
  }
  const fresh = [...firstByName.values()];
  if (fresh.length > 0) {
    const created = await ctx.db.query(MENTIONED_ENTITIES, [
      fresh.map((r) => r.nn),
      fresh.map((r) => r.name),
      fresh.map((r) => r.type),
      fresh.map((r) => r.kg_id),
    ]);
    derive(ctx, 'entities', { inserted: created.rows.length });
  }

  const params: unknown[] = [
    rows.map((r) => r.url_id),
    rows.map((r) => r.nn),
    rows.map((r) => r.name),
    rows.map((r) => r.type),
    rows.map((r) => r.mentions),
    rows.map((r) => r.unified_score),
    rows.map((r) => r.embedding_similarity),
    rows.map((r) => r.source),
  ];
  const deleted = await ctx.db.query(DELETE_STALE_LINKS, [...params, ids]);
  const upserted = rows.length ? await ctx.db.query<{ inserted: boolean }>(UPSERT_LINKS, params) : { rows: [] };
  const inserted = upserted.rows.filter((r) => r.inserted).length;
  derive(ctx, 'article_entities', { inserted, updated: upserted.rows.length - inserted, deleted: deleted.rows.length });
}

const CATEGORIES: UpsertSpec = {
  table: 'article_categories',
  key: ['url_id', 'name'],
  columns: [
    { name: 'url_id', type: 'uuid' },
    { name: 'name', type: 'text' },
    { name: 'confidence', type: 'real' },
  ],
};

export async function writeArticleCategories(ctx: BatchContext, articles: readonly Article[]): Promise<void> {
  const rows = articles.flatMap((a) => a.categories.map((c) => ({ url_id: a.id, name: c.name, confidence: c.confidence })));
  const deleted = await ctx.db.query(
    `DELETE FROM article_categories ac WHERE ac.url_id = ANY($1::uuid[]) AND NOT EXISTS (
       SELECT 1 FROM unnest($2::uuid[], $3::text[]) AS n(url_id, name) WHERE n.url_id = ac.url_id AND n.name = ac.name)
     RETURNING 1`,
    [articles.map((a) => a.id), rows.map((r) => r.url_id), rows.map((r) => r.name)],
  );
  const res = await upsert(ctx.db, CATEGORIES, rows);
  derive(ctx, 'article_categories', { inserted: res.inserted, updated: res.updated, deleted: deleted.rows.length });
  // A bulk load rebuilds article_tops at its end (REBUILD_PLAN_READS).
  if (ctx.rollups)
    await writeArticleTops(
      ctx,
      articles.map((a) => a.id),
    );
}
