// Trend reads: lists (filters, sorts, exact totals), one trend with its daily series, and the
// genealogy edges. Every query takes the caller's Scope, so none can forget the region gate.
import type { Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import type { SemanticType, StructuralType, TrendState } from '../../shared/db/values';
import type { Labels } from './labels';
import type { DayCount } from '../../shared/trends/features';
import { marketsParam, type Scope } from '../../shared/scope';
import { trendVisible } from './visibility';

export interface TrendRow extends Labels {
  id: string;
  state: TrendState;
  structural_type: StructuralType;
  semantic_type: SemanticType | null;
  semantic_type_confidence: number;
  article_count: number;
  first_seen_at: string | null;
  last_article_at: string | null;
  peak_date: string | null;
  expected_next_peak: string | null;
  key_entities: string[];
  key_topics: string[];
  topic_id: string | null;
  primary_country: string;
  country_scope: string[];
}

/** The Trend columns of `t`, as a JSON object (one shape for lists and detail). */
export const TREND_JSON = `json_build_object('id', t.id, 'label', t.label, 'summary', t.summary, 'label_en', t.label_en,
  'label_ru', t.label_ru, 'label_local', t.label_local, 'label_local_lang', t.label_local_lang, 'state', t.state,
  'structural_type', t.structural_type, 'semantic_type', t.semantic_type, 'semantic_type_confidence', t.semantic_type_confidence,
  'article_count', t.article_count, 'first_seen_at', t.first_seen_at, 'last_article_at', t.last_article_at,
  'peak_date', t.peak_date, 'expected_next_peak', t.expected_next_peak, 'key_entities', t.key_entities,
  'key_topics', t.key_topics, 'topic_id', t.topic_id, 'primary_country', t.primary_country, 'country_scope', t.country_scope)`;

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
  const dir = f.sortOrder === 'asc' ? 'ASC' : 'DESC';
  const order = `t.${f.sortBy} ${dir} NULLS LAST, t.id`;
  const [result] = await queryRows<{ total: number; rows: TrendRow[] }>(
    db,
    `WITH matched AS (
       SELECT t.* FROM trends t
       WHERE ${trendVisible('$1')}
         AND ($2::text IS NULL OR t.state = $2)
         AND ($3::text IS NULL OR t.structural_type = $3)
         AND ($4::text IS NULL OR ($4 = 'unclassified' AND t.semantic_type IS NULL) OR t.semantic_type = $4)
         AND ($5::uuid IS NULL OR t.topic_id = $5)
         AND ($6::uuid IS NULL OR t.topic_id IN (SELECT n.id FROM hierarchy_nodes n WHERE n.parent_id = $6 AND n.level = 1))
         AND t.article_count >= $7)
     SELECT (SELECT count(*) FROM matched)::int AS total,
            coalesce((SELECT json_agg(${TREND_JSON} ORDER BY ${order}) FROM (
              SELECT * FROM matched t ORDER BY ${order} LIMIT $8 OFFSET $9) t), '[]') AS rows`,
    [
      marketsParam(scope),
      f.state ?? null,
      f.structuralType ?? null,
      f.semanticType ?? null,
      f.topicId ?? null,
      f.themeId ?? null,
      f.minArticles,
      f.limit,
      f.offset,
    ],
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
  const [row] = await queryRows<{ trend: TrendDetailRow }>(
    db,
    `SELECT ${TREND_JSON}::jsonb || jsonb_build_object('created_at', t.created_at, 'updated_at', t.updated_at,
       'days', (SELECT coalesce(json_agg(json_build_object('day', d.day, 'articles', d.articles) ORDER BY d.day), '[]')
                FROM trend_days d WHERE d.trend_id = t.id),
       'first48h', t.first_48h_articles) AS trend
     FROM trends t WHERE t.id = $1 AND ${trendVisible('$2')}`,
    [id, marketsParam(scope)],
  );
  return row?.trend;
}

/** Whether the trend exists and the key may see it (routes that read something else of it). */
export async function isTrendVisible(db: Db, scope: Scope, id: string): Promise<boolean> {
  const rows = await queryRows<{ ok: number }>(db, `SELECT 1 AS ok FROM trends t WHERE t.id = $1 AND ${trendVisible('$2')}`, [
    id,
    marketsParam(scope),
  ]);
  return rows.length > 0;
}

/** The article_count of a visible trend; undefined when not visible (the roll-up's cost estimate). */
export async function getTrendSize(db: Db, scope: Scope, id: string): Promise<number | undefined> {
  const [row] = await queryRows<{ n: number }>(db, `SELECT t.article_count AS n FROM trends t WHERE t.id = $1 AND ${trendVisible('$2')}`, [
    id,
    marketsParam(scope),
  ]);
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
  const [self, other] = side === 'parent' ? ['child_id', 'parent_id'] : ['parent_id', 'child_id'];
  const [row] = await queryRows<{ edges: EdgeRow[] }>(
    db,
    `SELECT coalesce((SELECT json_agg(json_build_object('id', o.id, 'label', o.label, 'state', o.state, 'structural_type', o.structural_type,
              'relation_type', e.relation_type, 'strength', e.strength, 'established_at', e.established_at)
              ORDER BY e.strength DESC, e.established_at, o.id)
            FROM trend_edges e JOIN trends o ON o.id = e.${other}
            WHERE e.${self} = t.id AND ${trendVisible('$2', 'o')}), '[]') AS edges
     FROM trends t WHERE t.id = $1 AND ${trendVisible('$2')}`,
    [id, marketsParam(scope)],
  );
  return row?.edges;
}
