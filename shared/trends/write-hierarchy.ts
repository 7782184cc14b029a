// Keeps the hierarchy counts exact at ingest (docs/DATA.md "Hierarchy counts"): per node and
// article, the markets and categories that decide which keys see the article under the node
// (hierarchy_articles); how many articles share each such signature (hierarchy_signatures); and
// the counts of the common scopes per node and market (hierarchy_counts). A batch recomputes the
// rows of every article it may have moved and applies the differences.
import type { Queryable } from '../db/queryable';
import { derive, type BatchContext, type Groups } from '../ingest/write/types';

/**
 * An article category's top level, as plan scopes compare it (`category_tops()`, whose top levels
 * article_tops keeps for `inPlan` in shared/db/article-filters.ts): the two must stay the same expression.
 */
const TOP_LEVEL = (name: string) => `'/' || split_part(${name}, '/', 2)`;

/**
 * `nodes` and `rows` CTEs: the hierarchy rows of the assignments `filter` keeps (a condition on
 * `ta`), from the raw facts. A trend counts under its topic (level 1, when that node is a topic) and
 * the topic's parent (level 2). Per (level, node, article), sorted and distinct:
 * - trend_markets: primary_country and country_scope of the node's trends holding the article. A key
 *   sees one of those trends iff its markets meet that union;
 * - article_markets: the countries of the article's url_profiles (where it surfaced);
 * - categories: the top levels of the article's categories.
 */
const rowsOf = (filter: string) => `
  nodes AS (
    SELECT r.level, r.node_id, ta.url_id, array_agg(DISTINCT m ORDER BY m) AS trend_markets
    FROM trend_articles ta
    JOIN trends t ON t.id = ta.trend_id
    JOIN hierarchy_nodes tp ON tp.id = t.topic_id AND tp.level = 1
    CROSS JOIN LATERAL (VALUES (1::smallint, tp.id), (2::smallint, tp.parent_id)) AS r(level, node_id)
    CROSS JOIN LATERAL unnest(t.country_scope || t.primary_country) AS m
    WHERE r.node_id IS NOT NULL AND ${filter}
    GROUP BY r.level, r.node_id, ta.url_id),
  urls AS (
    SELECT u.url_id,
      coalesce((SELECT array_agg(DISTINCT p.country ORDER BY p.country) FROM url_profiles p WHERE p.url_id = u.url_id), '{}') AS article_markets,
      coalesce((SELECT array_agg(DISTINCT ${TOP_LEVEL('c.name')} ORDER BY ${TOP_LEVEL('c.name')})
                FROM article_categories c WHERE c.url_id = u.url_id), '{}') AS categories
    FROM (SELECT DISTINCT url_id FROM nodes) u),
  rows AS (
    SELECT n.level, n.node_id, n.url_id, n.trend_markets, u.article_markets, u.categories FROM nodes n JOIN urls u USING (url_id))`;

const SIGNATURE = ['level', 'node_id', 'trend_set', 'article_set', 'category_set'];
const MARKET = ['level', 'node_id', 'market'];
const same = (keys: string[], a: string, b: string) => keys.map((k) => `${a}.${k} = ${b}.${k}`).join(' AND ');

/**
 * The hierarchy_counts markets an article of a signature counts in: `*` (every article), `+` (it
 * surfaced somewhere) and each market both in its trends' markets and its own.
 */
const MARKETS_OF = (trendMarkets: string, articleMarkets: string) =>
  `ARRAY['*'] || CASE WHEN cardinality(${articleMarkets}) > 0 THEN ARRAY['+'] ELSE '{}'::text[] END
   || ARRAY(SELECT unnest(${trendMarkets}) INTERSECT SELECT unnest(${articleMarkets}))`;

/**
 * CTEs `<p>_cur`, `_added`, `_moved`, `_emptied`: adds the CTE `delta` (the keys and `d`) to the
 * n_articles of `table`, creating rows and deleting those that reach zero.
 */
const applyDelta = (p: string, table: string, keys: string[], delta: string) => `
${p}_cur AS (SELECT d.*, c.n_articles FROM ${delta} d LEFT JOIN ${table} c ON ${same(keys, 'c', 'd')}),
${p}_added AS (INSERT INTO ${table} (${keys.join(', ')}, n_articles) SELECT ${keys.join(', ')}, d FROM ${p}_cur WHERE n_articles IS NULL RETURNING 1),
${p}_moved AS (
  UPDATE ${table} c SET n_articles = x.n_articles + x.d FROM ${p}_cur x WHERE ${same(keys, 'c', 'x')} AND x.n_articles + x.d <> 0 RETURNING 1),
${p}_emptied AS (DELETE FROM ${table} c USING ${p}_cur x WHERE ${same(keys, 'c', 'x')} AND x.n_articles + x.d = 0 RETURNING 1)`;

const changes = (p: string) =>
  `(SELECT count(*) FROM ${p}_added)::int AS ${p}_inserted, (SELECT count(*) FROM ${p}_moved)::int AS ${p}_updated,
   (SELECT count(*) FROM ${p}_emptied)::int AS ${p}_deleted`;

/**
 * Brings the rows of the articles in $1 in line with the raw facts, in one statement: new arrays
 * join hierarchy_sets, rows that changed are rewritten, each changed row moves one article from its
 * old signature to its new one, and the signatures' changes move the per-market counts.
 */
const SYNC = `
WITH ${rowsOf('ta.url_id = ANY($1::uuid[])')},
arrays AS (SELECT trend_markets AS items FROM rows UNION SELECT article_markets FROM rows UNION SELECT categories FROM rows),
new_sets AS (INSERT INTO hierarchy_sets (items) SELECT items FROM arrays ON CONFLICT (items) DO NOTHING RETURNING id, items),
sets AS (SELECT s.id, s.items FROM hierarchy_sets s WHERE s.items IN (SELECT items FROM arrays) UNION ALL SELECT id, items FROM new_sets),
want AS (
  SELECT r.level, r.node_id, r.url_id, t.id AS trend_set, a.id AS article_set, c.id AS category_set
  FROM rows r JOIN sets t ON t.items = r.trend_markets JOIN sets a ON a.items = r.article_markets JOIN sets c ON c.items = r.categories),
have AS MATERIALIZED (
  SELECT level, node_id, url_id, trend_set, article_set, category_set FROM hierarchy_articles WHERE url_id = ANY($1::uuid[])),
diff AS (
  SELECT coalesce(w.level, h.level) AS level, coalesce(w.node_id, h.node_id) AS node_id, coalesce(w.url_id, h.url_id) AS url_id,
         h.trend_set AS old_t, h.article_set AS old_a, h.category_set AS old_c, w.trend_set AS new_t, w.article_set AS new_a, w.category_set AS new_c
  FROM want w FULL JOIN have h ON h.level = w.level AND h.node_id = w.node_id AND h.url_id = w.url_id
  WHERE (w.trend_set, w.article_set, w.category_set) IS DISTINCT FROM (h.trend_set, h.article_set, h.category_set)),
gone AS (
  DELETE FROM hierarchy_articles x USING diff d
  WHERE d.new_t IS NULL AND x.url_id = d.url_id AND x.level = d.level AND x.node_id = d.node_id AND x.url_id = ANY($1::uuid[])
  RETURNING 1),
kept AS (
  INSERT INTO hierarchy_articles (level, node_id, url_id, trend_set, article_set, category_set)
  SELECT level, node_id, url_id, new_t, new_a, new_c FROM diff WHERE new_t IS NOT NULL
  ON CONFLICT (level, node_id, url_id) DO UPDATE
    SET trend_set = excluded.trend_set, article_set = excluded.article_set, category_set = excluded.category_set
  RETURNING (xmax = 0) AS inserted),
delta AS (
  SELECT level, node_id, trend_set, article_set, category_set, sum(d)::int AS d FROM (
    SELECT level, node_id, old_t AS trend_set, old_a AS article_set, old_c AS category_set, -1 AS d FROM diff WHERE old_t IS NOT NULL
    UNION ALL SELECT level, node_id, new_t, new_a, new_c, 1 FROM diff WHERE new_t IS NOT NULL) x
  GROUP BY ${SIGNATURE.join(', ')} HAVING sum(d) <> 0),
${applyDelta('sig', 'hierarchy_signatures', SIGNATURE, 'delta')},
ids AS (
  SELECT id, items FROM sets
  UNION SELECT s.id, s.items FROM hierarchy_sets s WHERE s.id IN (SELECT trend_set FROM delta UNION SELECT article_set FROM delta)),
market_delta AS (
  SELECT d.level, d.node_id, m.market, sum(d.d)::int AS d
  FROM delta d JOIN ids t ON t.id = d.trend_set JOIN ids a ON a.id = d.article_set
  CROSS JOIN LATERAL unnest(${MARKETS_OF('t.items', 'a.items')}) AS m(market)
  GROUP BY d.level, d.node_id, m.market HAVING sum(d.d) <> 0),
${applyDelta('mkt', 'hierarchy_counts', MARKET, 'market_delta')}
SELECT (SELECT count(*) FROM new_sets)::int AS sets,
       (SELECT count(*) FILTER (WHERE inserted) FROM kept)::int AS inserted, (SELECT count(*) FILTER (WHERE NOT inserted) FROM kept)::int AS updated,
       (SELECT count(*) FROM gone)::int AS deleted, ${changes('sig')}, ${changes('mkt')}`;

/** Every hierarchy row from the raw facts (the rebuild; 0013_hierarchy_counts backfills with the same statements). */
export const REBUILD_HIERARCHY = [
  `TRUNCATE hierarchy_articles, hierarchy_signatures, hierarchy_counts, hierarchy_sets`,
  `CREATE TEMP TABLE rebuild_hierarchy ON COMMIT DROP AS WITH ${rowsOf('true')} SELECT * FROM rows`,
  `INSERT INTO hierarchy_sets (items)
   SELECT trend_markets FROM rebuild_hierarchy UNION SELECT article_markets FROM rebuild_hierarchy UNION SELECT categories FROM rebuild_hierarchy`,
  `INSERT INTO hierarchy_articles (level, node_id, url_id, trend_set, article_set, category_set)
   SELECT r.level, r.node_id, r.url_id, t.id, a.id, c.id FROM rebuild_hierarchy r
   JOIN hierarchy_sets t ON t.items = r.trend_markets JOIN hierarchy_sets a ON a.items = r.article_markets JOIN hierarchy_sets c ON c.items = r.categories`,
  `INSERT INTO hierarchy_signatures (${SIGNATURE.join(', ')}, n_articles)
   SELECT ${SIGNATURE.join(', ')}, count(*)::int FROM hierarchy_articles GROUP BY ${SIGNATURE.join(', ')}`,
  `INSERT INTO hierarchy_counts (level, node_id, market, n_articles)
   SELECT s.level, s.node_id, m.market, sum(s.n_articles)::int FROM hierarchy_signatures s
   JOIN hierarchy_sets t ON t.id = s.trend_set JOIN hierarchy_sets a ON a.id = s.article_set
   CROSS JOIN LATERAL unnest(${MARKETS_OF('t.items', 'a.items')}) AS m(market)
   GROUP BY s.level, s.node_id, m.market`,
  `DROP TABLE rebuild_hierarchy`,
];

interface TrendPlace {
  id: string;
  topic_id: string | null;
  primary_country: string;
  country_scope: string[];
}

interface NodePlace {
  id: string;
  level: number;
  parent_id: string | null;
}

/** Where trends and nodes stand (id -> topic and regions / level and parent): a trend or topic that moves moves its articles. */
export interface HierarchyPlaces {
  trends: Map<string, string>;
  nodes: Map<string, string>;
}

const TRENDS_NOW = `SELECT id::text AS id, topic_id::text AS topic_id, primary_country, country_scope FROM trends WHERE id = ANY($1::uuid[])`;
const NODES_NOW = `SELECT id::text AS id, level, parent_id::text AS parent_id FROM hierarchy_nodes WHERE id = ANY($1::uuid[])`;
const trendPlace = (t: TrendPlace) => JSON.stringify([t.topic_id, t.primary_country, t.country_scope]);
const nodePlace = (n: NodePlace) => JSON.stringify([Number(n.level), n.parent_id]);

/** Where the batch's trends and nodes stand: read before its writers (runBatch) and after, to compare. */
export async function hierarchyPlaces(db: Queryable, groups: Groups): Promise<HierarchyPlaces> {
  const trendIds = [...new Set(groups.trend.map((i) => i.record.id))];
  const nodeIds = [...new Set(groups.hierarchy_node.map((i) => i.record.id))];
  const trends = trendIds.length ? (await db.query<TrendPlace>(TRENDS_NOW, [trendIds])).rows : [];
  const nodes = nodeIds.length ? (await db.query<NodePlace>(NODES_NOW, [nodeIds])).rows : [];
  return { trends: new Map(trends.map((t) => [t.id, trendPlace(t)])), nodes: new Map(nodes.map((n) => [n.id, nodePlace(n)])) };
}

// Assignments of trends whose topic or regions changed, and of every trend of a node whose level or
// parent changed (a topic moving theme moves all its articles).
const MOVED_URLS = `
  SELECT ta.url_id::text AS url_id FROM trend_articles ta WHERE ta.trend_id = ANY($1::uuid[])
  UNION SELECT ta.url_id::text FROM trends t JOIN trend_articles ta ON ta.trend_id = t.id WHERE t.topic_id = ANY($2::uuid[])`;

type SyncResult = Record<'sets' | 'inserted' | 'updated' | 'deleted' | `${'sig' | 'mkt'}_${'inserted' | 'updated' | 'deleted'}`, number>;

/**
 * After the batch's writers: every article whose rows may have changed is recomputed. That is an
 * article of a new assignment, of an article line (its categories are replaced), with a new
 * url_profiles row (a new market), or of a trend or topic that moved. Existing rows change only
 * through those facts: assignments are never deleted, profiles only added.
 */
export async function syncHierarchy(ctx: BatchContext, before: HierarchyPlaces): Promise<void> {
  const urls = new Set([...ctx.hierarchyUrls, ...ctx.groups.article.map((i) => i.record.id), ...ctx.newTrendArticles.map((r) => r.url_id)]);
  const after = await hierarchyPlaces(ctx.db, ctx.groups);
  const movedTrends = [...after.trends].filter(([id, place]) => before.trends.has(id) && before.trends.get(id) !== place).map(([id]) => id);
  const movedNodes = [...after.nodes].filter(([id, place]) => before.nodes.has(id) && before.nodes.get(id) !== place).map(([id]) => id);
  if (movedTrends.length || movedNodes.length) {
    for (const r of (await ctx.db.query<{ url_id: string }>(MOVED_URLS, [movedTrends, movedNodes])).rows) urls.add(r.url_id);
  }
  if (urls.size === 0) return;
  const {
    rows: [r],
  } = await ctx.db.query<SyncResult>(SYNC, [[...urls]]);
  derive(ctx, 'hierarchy_sets', { inserted: r.sets });
  derive(ctx, 'hierarchy_articles', { inserted: r.inserted, updated: r.updated, deleted: r.deleted });
  derive(ctx, 'hierarchy_signatures', { inserted: r.sig_inserted, updated: r.sig_updated, deleted: r.sig_deleted });
  derive(ctx, 'hierarchy_counts', { inserted: r.mkt_inserted, updated: r.mkt_updated, deleted: r.mkt_deleted });
}
