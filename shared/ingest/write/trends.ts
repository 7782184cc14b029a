// The theme/topic hierarchy, trends, their article assignments and the genealogy edges.
// trends.article_count / first_seen_at / last_article_at / first_48h_articles / peak_date and the
// trend_days series are derived here, never taken from lines: count of trend_articles, min / max of the assigned articles'
// first_seen_at, articles per UTC day of first_seen_at, and the busiest day. Assignments are
// never deleted and their key holds the article, so a newly inserted assignment can be added to
// the aggregates exactly (count + 1, least/greatest); only a corrected article (its first_seen_at
// may have moved) forces a full recomputation of its trends.
import { pgArray, textArrayColumn, upsert, type Column, type UpsertSpec } from './sql';
import { derive, tally, type BatchContext } from './types';

const text = (name: string): Column => ({ name, type: 'text' });

const HIERARCHY: UpsertSpec = {
  table: 'hierarchy_nodes',
  key: ['id'],
  columns: [
    { name: 'id', type: 'uuid' },
    { name: 'level', type: 'int4' },
    text('label'),
    text('summary'),
    text('label_en'),
    text('label_ru'),
    text('label_local'),
    text('label_local_lang'),
    { name: 'parent_id', type: 'uuid' },
    text('state'),
  ],
};

// created_at / updated_at are optional on a trend line. When absent the parameter is null and the
// inserted value is now(); on update, `excluded.x = now()` is how "absent" is recognized (no line
// can carry the transaction's own start time), so: created_at is then kept, and updated_at becomes
// now() only if something else changed (it is not part of the change test).
const optionalStamp = (name: string, keepWhenAbsent: boolean): Column => ({
  name,
  type: 'timestamptz',
  expr: `coalesce(s.${name}, now())`,
  set: keepWhenAbsent ? `CASE WHEN excluded.${name} = now() THEN trends.${name} ELSE excluded.${name} END` : undefined,
  changed: `(excluded.${name} <> now() AND excluded.${name} IS DISTINCT FROM trends.${name})`,
});

const TRENDS: UpsertSpec = {
  table: 'trends',
  key: ['id'],
  returning: 'id::text AS id',
  columns: [
    { name: 'id', type: 'uuid' },
    text('label'),
    text('summary'),
    text('label_en'),
    text('label_ru'),
    text('label_local'),
    text('label_local_lang'),
    text('state'),
    text('structural_type'),
    text('semantic_type'),
    { name: 'semantic_type_confidence', type: 'real' },
    { name: 'topic_id', type: 'uuid' },
    text('primary_country'),
    textArrayColumn('country_scope'),
    textArrayColumn('key_entities'),
    textArrayColumn('key_topics'),
    // A line's `peak_date` and `features` are accepted (old files load) and ignored: both are derived.
    { name: 'expected_next_peak', type: 'date' },
    optionalStamp('created_at', true),
    optionalStamp('updated_at', false),
  ],
};

const TREND_ARTICLES: UpsertSpec = {
  table: 'trend_articles',
  key: ['trend_id', 'url_id'],
  returning: 'trend_id::text AS trend_id, url_id::text AS url_id',
  columns: [
    { name: 'trend_id', type: 'uuid' },
    { name: 'url_id', type: 'uuid' },
    text('assignment_method'),
    { name: 'assignment_score', type: 'float8' },
    text('trend_role'),
    { name: 'assigned_at', type: 'timestamptz' },
  ],
};

const TREND_EDGES: UpsertSpec = {
  table: 'trend_edges',
  key: ['parent_id', 'child_id'],
  columns: [
    { name: 'parent_id', type: 'uuid' },
    { name: 'child_id', type: 'uuid' },
    text('relation_type'),
    { name: 'strength', type: 'real' },
    { name: 'established_at', type: 'timestamptz' },
  ],
};

export async function writeHierarchy(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.hierarchy_node;
  const res = await upsert(
    ctx.db,
    HIERARCHY,
    items.map((i) => i.record),
  );
  tally(ctx, 'hierarchy_node', items.length, res.inserted, res.updated);
}

export async function writeTrends(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.trend;
  const rows = items.map(({ record: r }) => ({
    ...r,
    country_scope: pgArray(r.country_scope),
    key_entities: pgArray(r.key_entities),
    key_topics: pgArray(r.key_topics),
  }));
  const res = await upsert(ctx.db, TRENDS, rows);
  tally(ctx, 'trend', items.length, res.inserted, res.updated);
}

export async function writeTrendArticles(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.trend_article;
  const res = await upsert<{ trend_id: string; url_id: string }>(
    ctx.db,
    TREND_ARTICLES,
    items.map((i) => i.record),
  );
  tally(ctx, 'trend_article', items.length, res.inserted, res.updated);
  for (const r of res.rows) if (r.inserted) ctx.newTrendArticles.push(r);
}

export async function writeTrendEdges(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.trend_edge;
  const res = await upsert(
    ctx.db,
    TREND_EDGES,
    items.map((i) => i.record),
  );
  tally(ctx, 'trend_edge', items.length, res.inserted, res.updated);
}

const RECOMPUTE = `
  WITH agg AS (
    SELECT t.id, a.n, a.first_seen, a.last_seen FROM unnest($1::uuid[]) AS t(id) CROSS JOIN LATERAL (
      SELECT count(*)::int AS n, min(ar.first_seen_at) AS first_seen, max(ar.first_seen_at) AS last_seen
      FROM trend_articles ta JOIN articles ar ON ar.id = ta.url_id WHERE ta.trend_id = t.id) a)
  UPDATE trends tr SET article_count = agg.n, first_seen_at = agg.first_seen, last_article_at = agg.last_seen
  FROM agg
  WHERE tr.id = agg.id
    AND (tr.article_count, tr.first_seen_at, tr.last_article_at) IS DISTINCT FROM (agg.n, agg.first_seen, agg.last_seen)
  RETURNING 1`;

// least/greatest ignore NULLs, so a trend's first assignment sets both bounds. first_48h_articles
// (articles first seen < 48 h after the trend's first) grows by the new ones inside that window while
// the first article stays; when a new article is earlier (`moved`), the window moves: recounted below.
const ADD = `
  WITH x AS (
    SELECT x.trend_id, a.first_seen_at AS fs FROM unnest($1::uuid[], $2::uuid[]) AS x(trend_id, url_id)
    CROSS JOIN LATERAL (SELECT first_seen_at FROM articles a WHERE a.id = x.url_id LIMIT 1) a),
  add AS (
    SELECT x.trend_id, count(*)::int AS n, min(x.fs) AS first_seen, max(x.fs) AS last_seen,
           count(*) FILTER (WHERE x.fs < t.first_seen_at + interval '48 hours')::int AS within,
           (t.first_seen_at IS NULL OR min(x.fs) < t.first_seen_at) AS moved
    FROM x JOIN trends t ON t.id = x.trend_id GROUP BY x.trend_id, t.first_seen_at)
  UPDATE trends tr SET article_count = tr.article_count + add.n,
    first_seen_at = least(tr.first_seen_at, add.first_seen), last_article_at = greatest(tr.last_article_at, add.last_seen),
    first_48h_articles = CASE WHEN add.moved THEN tr.first_48h_articles ELSE tr.first_48h_articles + add.within END
  FROM add WHERE tr.id = add.trend_id
  RETURNING tr.id::text AS id, add.moved`;

/** Recounts first_48h_articles of the trends in $1 from their assignments. */
export const RECOUNT_FIRST_48H = `
  UPDATE trends t SET first_48h_articles = (
    SELECT count(*)::int FROM trend_articles ta JOIN articles a ON a.id = ta.url_id
    WHERE ta.trend_id = t.id AND a.first_seen_at < t.first_seen_at + interval '48 hours')
  WHERE t.id = ANY($1::uuid[])`;

const ADD_DAYS = `
  INSERT INTO trend_days (trend_id, day, articles)
  SELECT x.trend_id, (a.first_seen_at AT TIME ZONE 'UTC')::date, count(*)::int
  FROM unnest($1::uuid[], $2::uuid[]) AS x(trend_id, url_id) JOIN articles a ON a.id = x.url_id
  GROUP BY 1, 2
  ON CONFLICT (trend_id, day) DO UPDATE SET articles = trend_days.articles + excluded.articles`;

const CLEAR_DAYS = `DELETE FROM trend_days WHERE trend_id = ANY($1::uuid[])`;
const REBUILD_DAYS = `
  INSERT INTO trend_days (trend_id, day, articles)
  SELECT ta.trend_id, (a.first_seen_at AT TIME ZONE 'UTC')::date, count(*)::int
  FROM trend_articles ta JOIN articles a ON a.id = ta.url_id WHERE ta.trend_id = ANY($1::uuid[])
  GROUP BY 1, 2`;

// The busiest day, latest on ties (a trend that flares up again peaks at its newest flare).
const PEAKS = `
  UPDATE trends t SET peak_date = p.day
  FROM (SELECT DISTINCT ON (trend_id) trend_id, day FROM trend_days WHERE trend_id = ANY($1::uuid[])
        ORDER BY trend_id, articles DESC, day DESC) p
  WHERE t.id = p.trend_id AND t.peak_date IS DISTINCT FROM p.day`;

export async function refreshTrendAggregates(ctx: BatchContext): Promise<void> {
  const added = ctx.newTrendArticles.filter((r) => !ctx.touchedTrends.has(r.trend_id));
  let updated = 0;
  const recount: string[] = [];
  if (added.length) {
    const params = [added.map((r) => r.trend_id), added.map((r) => r.url_id)];
    const rows = (await ctx.db.query<{ id: string; moved: boolean }>(ADD, params)).rows;
    updated += rows.length;
    recount.push(...rows.filter((r) => r.moved).map((r) => r.id));
    await ctx.db.query(ADD_DAYS, params);
  }
  if (ctx.touchedTrends.size) {
    const ids = [...ctx.touchedTrends];
    updated += (await ctx.db.query(RECOMPUTE, [ids])).rows.length;
    recount.push(...ids);
    await ctx.db.query(CLEAR_DAYS, [ids]);
    await ctx.db.query(REBUILD_DAYS, [ids]);
  }
  if (recount.length) await ctx.db.query(RECOUNT_FIRST_48H, [recount]);
  const changed = [...new Set([...added.map((r) => r.trend_id), ...ctx.touchedTrends])];
  if (changed.length) await ctx.db.query(PEAKS, [changed]);
  derive(ctx, 'trends', { updated });
}
