// Trend reads: lists (filters, sorts, exact totals), one trend with its daily series, and the
// genealogy edges. Every query takes the caller's Scope, so none can forget the region gate.
import { type GetColumnData, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../shared/db/client';
import { sqlRows } from '../../shared/db/raw';
import { hierarchyNodes, trendDays, trendEdges, trends } from '../../shared/db/schema/trends';
import type { SemanticType, StructuralType, TrendState } from '../../shared/db/values';
import type { Labels } from './labels';
import type { DayCount } from '../../shared/trends/features';
import type { Scope } from '../../shared/scope/scope';
import { trendVisible } from './visibility';

export interface TrendRow extends Labels {
  id: GetColumnData<typeof trends.id>;
  state: GetColumnData<typeof trends.state>;
  structural_type: StructuralType;
  semantic_type: SemanticType | null;
  semantic_type_confidence: number;
  article_count: GetColumnData<typeof trends.articleCount>;
  first_seen_at: string | null;
  last_article_at: string | null;
  peak_date: string | null;
  expected_next_peak: string | null;
  key_entities: GetColumnData<typeof trends.keyEntities>;
  key_topics: GetColumnData<typeof trends.keyTopics>;
  topic_id: GetColumnData<typeof trends.topicId>;
  primary_country: GetColumnData<typeof trends.primaryCountry>;
  country_scope: GetColumnData<typeof trends.countryScope>;
}

/** The trend a statement reads (`t`: the table, or a derived table of its rows); `o` the other end of an edge. */
const t = alias(trends, 't');
const o = alias(trends, 'o');

/** The Trend columns of `t`, as a JSON object (one shape for lists and detail). */
const TREND_JSON = sql`json_build_object('id', ${t.id}, 'label', ${t.label}, 'summary', ${t.summary}, 'label_en', ${t.labelEn},
  'label_ru', ${t.labelRu}, 'label_local', ${t.labelLocal}, 'label_local_lang', ${t.labelLocalLang}, 'state', ${t.state},
  'structural_type', ${t.structuralType}, 'semantic_type', ${t.semanticType}, 'semantic_type_confidence', ${t.semanticTypeConfidence},
  'article_count', ${t.articleCount}, 'first_seen_at', ${t.firstSeenAt}, 'last_article_at', ${t.lastArticleAt},
  'peak_date', ${t.peakDate}, 'expected_next_peak', ${t.expectedNextPeak}, 'key_entities', ${t.keyEntities},
  'key_topics', ${t.keyTopics}, 'topic_id', ${t.topicId}, 'primary_country', ${t.primaryCountry}, 'country_scope', ${t.countryScope})`;

/** The column of each list sort. */
const SORT = { last_article_at: t.lastArticleAt, first_seen_at: t.firstSeenAt, article_count: t.articleCount } as const;

export interface TrendFilter {
  state?: string;
  structuralType?: string;
  /** A semantic type, or `unclassified` for trends without one. */
  semanticType?: string;
  topicId?: string;
  themeId?: string;
  minArticles: number;
  sortBy: 'last_article_at' | 'first_seen_at' | 'article_count';
  sortOrder: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/** One page of visible trends and the exact number that match, in one round trip. */
export async function listTrends(db: Db, scope: Scope, f: TrendFilter): Promise<{ total: number; rows: TrendRow[] }> {
  const order = sql`${SORT[f.sortBy]} ${sql.raw(f.sortOrder === 'asc' ? 'ASC' : 'DESC')} NULLS LAST, ${t.id}`;
  const state = f.state ?? null;
  const structural = f.structuralType ?? null;
  const semantic = f.semanticType ?? null;
  const topic = f.topicId ?? null;
  const theme = f.themeId ?? null;
  const [result] = await sqlRows<{ total: number; rows: TrendRow[] }>(
    db,
    sql`WITH matched AS (
       SELECT ${t}.* FROM ${trends} ${t}
       WHERE ${trendVisible(scope, t)}
         AND (${state}::text IS NULL OR ${t.state} = ${state})
         AND (${structural}::text IS NULL OR ${t.structuralType} = ${structural})
         AND (${semantic}::text IS NULL OR (${semantic}::text = 'unclassified' AND ${t.semanticType} IS NULL) OR ${t.semanticType} = ${semantic})
         AND (${topic}::uuid IS NULL OR ${t.topicId} = ${topic})
         AND (${theme}::uuid IS NULL OR ${t.topicId} IN (
               SELECT ${hierarchyNodes.id} FROM ${hierarchyNodes} WHERE ${hierarchyNodes.parentId} = ${theme} AND ${hierarchyNodes.level} = 1))
         AND ${t.articleCount} >= ${f.minArticles})
     SELECT (SELECT count(*) FROM matched)::int AS total,
            coalesce((SELECT json_agg(${TREND_JSON} ORDER BY ${order}) FROM (
              SELECT * FROM matched ${t} ORDER BY ${order} LIMIT ${f.limit} OFFSET ${f.offset}) ${t}), '[]') AS rows`,
  );
  return result!;
}

export interface TrendDetailRow extends TrendRow {
  created_at: string;
  updated_at: string;
  days: DayCount[];
  first48h: number;
}

/** One visible trend with its daily series (and the first-48-hours count ingest keeps); undefined when not visible. */
export async function getTrend(db: Db, scope: Scope, id: string): Promise<TrendDetailRow | undefined> {
  const [row] = await sqlRows<{ trend: TrendDetailRow }>(
    db,
    sql`SELECT ${TREND_JSON}::jsonb || jsonb_build_object('created_at', ${t.createdAt}, 'updated_at', ${t.updatedAt},
       'days', (SELECT coalesce(json_agg(json_build_object('day', ${trendDays.day}, 'articles', ${trendDays.articles}) ORDER BY ${trendDays.day}), '[]')
                FROM ${trendDays} WHERE ${trendDays.trendId} = ${t.id}),
       'first48h', ${t.first48hArticles}) AS trend
     FROM ${trends} ${t} WHERE ${t.id} = ${id} AND ${trendVisible(scope, t)}`,
  );
  return row?.trend;
}

/** Whether the trend exists and the key may see it (routes that read something else of it). */
export async function isTrendVisible(db: Db, scope: Scope, id: string): Promise<boolean> {
  const rows = await sqlRows<{ ok: number }>(
    db,
    sql`SELECT 1 AS ok FROM ${trends} ${t} WHERE ${t.id} = ${id} AND ${trendVisible(scope, t)}`,
  );
  return rows.length > 0;
}

/** The article_count of a visible trend; undefined when not visible (the roll-up's cost estimate). */
export async function getTrendSize(db: Db, scope: Scope, id: string): Promise<number | undefined> {
  const [row] = await sqlRows<{ n: GetColumnData<typeof trends.articleCount> }>(
    db,
    sql`SELECT ${t.articleCount} AS n FROM ${trends} ${t} WHERE ${t.id} = ${id} AND ${trendVisible(scope, t)}`,
  );
  return row?.n;
}

export interface EdgeRow {
  id: string;
  label: string;
  state: TrendState;
  structural_type: StructuralType;
  relation_type: string;
  strength: number;
  established_at: string;
}

/**
 * The direct parents (`side` = parent) or children of a visible trend, strongest first; edges to
 * trends the key may not see are left out. Undefined when the trend itself is not visible.
 */
export async function listEdges(db: Db, scope: Scope, id: string, side: 'parent' | 'child'): Promise<EdgeRow[] | undefined> {
  const [self, other]: SQL[] =
    side === 'parent'
      ? [sql`${trendEdges.childId}`, sql`${trendEdges.parentId}`]
      : [sql`${trendEdges.parentId}`, sql`${trendEdges.childId}`];
  const [row] = await sqlRows<{ edges: EdgeRow[] }>(
    db,
    sql`SELECT coalesce((SELECT json_agg(json_build_object('id', ${o.id}, 'label', ${o.label}, 'state', ${o.state}, 'structural_type', ${o.structuralType},
              'relation_type', ${trendEdges.relationType}, 'strength', ${trendEdges.strength}, 'established_at', ${trendEdges.establishedAt})
              ORDER BY ${trendEdges.strength} DESC, ${trendEdges.establishedAt}, ${o.id})
            FROM ${trendEdges} JOIN ${trends} ${o} ON ${o.id} = ${other}
            WHERE ${self} = ${t.id} AND ${trendVisible(scope, o)}), '[]') AS edges
     FROM ${trends} ${t} WHERE ${t.id} = ${id} AND ${trendVisible(scope, t)}`,
  );
  return row?.edges;
}
