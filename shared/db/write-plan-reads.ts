// Keeps the plan reads' tables exact at ingest (drizzle/0014_plan_reads.sql, docs/DATA.md):
// - article_tops: each article's top-level categories, rewritten with its categories (every run,
//   like the categories themselves: plan visibility reads it);
// - article_reach: articles per (markets reached, top categories). An article's markets only grow
//   (profiles are never deleted), so the batch knows each touched article's old combination from
//   its current one: the markets minus the profiles the batch inserted, the top levels as they were
//   before the batch rewrote them. The batch adds the new combination and subtracts the old one.
import { derive, type BatchContext } from '../ingest/write/types';

/** The article's markets as article_reach keys them: 'CC:ll' of each profile, in byte order. */
const MARKETS_OF = (id: string) => `ARRAY(SELECT (mp.country || ':' || mp.language) COLLATE "C" AS m FROM url_profiles mp
  WHERE mp.url_id = ${id} ORDER BY m)`;

/** The article's top levels from its stored categories ('{}' for none). */
const TOPS_OF = (id: string) =>
  `coalesce((SELECT category_tops(array_agg(tc.name)) FROM article_categories tc WHERE tc.url_id = ${id}), '{}')`;

// Rows only for articles with a category; returns every article whose top levels changed, with the old ones.
const WRITE_TOPS = `
WITH want AS (SELECT i.url_id, ${TOPS_OF('i.url_id')} AS tops FROM unnest($1::uuid[]) AS i(url_id)),
old AS MATERIALIZED (SELECT url_id, top_categories FROM article_tops WHERE url_id = ANY($1::uuid[])),
del AS (DELETE FROM article_tops t USING want w WHERE t.url_id = w.url_id AND w.tops = '{}' AND t.url_id = ANY($1::uuid[]) RETURNING 1),
up AS (
  INSERT INTO article_tops (url_id, top_categories) SELECT url_id, tops FROM want WHERE tops <> '{}'
  ON CONFLICT (url_id) DO UPDATE SET top_categories = excluded.top_categories WHERE article_tops.top_categories <> excluded.top_categories
  RETURNING 1)
SELECT w.url_id::text AS url_id, coalesce(o.top_categories, '{}') AS old_tops, (SELECT count(*) FROM del)::int AS deleted, (SELECT count(*) FROM up)::int AS written
FROM want w LEFT JOIN old o ON o.url_id = w.url_id WHERE coalesce(o.top_categories, '{}') <> w.tops`;

/** Rewrites the articles' article_tops rows from their (just written) categories; notes changed ones for the reach. */
export async function writeArticleTops(ctx: BatchContext, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const { rows } = await ctx.db.query<{ url_id: string; old_tops: string[]; deleted: number; written: number }>(WRITE_TOPS, [ids]);
  derive(ctx, 'article_tops', { updated: rows[0]?.written ?? 0, deleted: rows[0]?.deleted ?? 0 });
  for (const r of rows) if (!ctx.topsBefore.has(r.url_id)) ctx.topsBefore.set(r.url_id, r.old_tops);
}

/** Notes profiles the batch inserted (their markets are new to the article). */
export function noteNewMarket(ctx: BatchContext, urlId: string, country: string, language: string): void {
  const markets = ctx.newMarkets.get(urlId) ?? [];
  markets.push(`${country}:${language}`);
  ctx.newMarkets.set(urlId, markets);
}

// One row per touched article: its current combination counts +1, its old one -1 (an empty market
// set is no combination: the article was, or still is, in no market).
const APPLY_REACH = `
WITH x AS (SELECT * FROM json_to_recordset($1::json) AS x(url_id uuid, old_tops text[], added text[])),
cur AS (
  SELECT x.url_id, x.old_tops, coalesce(x.added, '{}') AS added, ${MARKETS_OF('x.url_id')} AS markets,
    coalesce((SELECT t.top_categories FROM article_tops t WHERE t.url_id = x.url_id), '{}') AS tops
  FROM x),
delta AS (
  SELECT markets, tops, 1 AS n FROM cur WHERE markets <> '{}'
  UNION ALL
  SELECT old_markets, coalesce(old_tops, tops), -1 FROM (
    SELECT cur.*, ARRAY(SELECT u.m FROM unnest(cur.markets) WITH ORDINALITY AS u(m, i) WHERE u.m <> ALL(cur.added) ORDER BY u.i) AS old_markets FROM cur) o
  WHERE old_markets <> '{}'),
agg AS (SELECT markets, tops, sum(n)::int AS n FROM delta GROUP BY markets, tops HAVING sum(n) <> 0)
INSERT INTO article_reach (markets, countries, top_categories, articles)
SELECT markets, market_countries(markets), tops, n FROM agg
ON CONFLICT (markets, top_categories) DO UPDATE SET articles = article_reach.articles + excluded.articles
RETURNING (xmax = 0) AS inserted, articles`;

/** After the batch's writers: moves every touched article from its old combination to its new one. */
export async function refreshReach(ctx: BatchContext): Promise<void> {
  const urls = new Set([...ctx.topsBefore.keys(), ...ctx.newMarkets.keys()]);
  if (urls.size === 0) return;
  const touched = [...urls].map((url_id) => ({
    url_id,
    old_tops: ctx.topsBefore.get(url_id) ?? null,
    added: ctx.newMarkets.get(url_id) ?? [],
  }));
  const { rows } = await ctx.db.query<{ inserted: boolean; articles: number }>(APPLY_REACH, [JSON.stringify(touched)]);
  // A combination that no article still has is removed, so that the table equals a rebuild.
  const emptied = rows.some((r) => r.articles === 0)
    ? (await ctx.db.query('DELETE FROM article_reach WHERE articles = 0 RETURNING 1')).rows.length
    : 0;
  const inserted = rows.filter((r) => r.inserted).length;
  derive(ctx, 'article_reach', { inserted, updated: rows.length - inserted - emptied, deleted: emptied });
}

/** Set-based rebuild of article_tops and article_reach from the categories and the profiles. */
export const REBUILD_PLAN_READS = [
  `TRUNCATE article_tops, article_reach`,
  `INSERT INTO article_tops (url_id, top_categories) SELECT url_id, category_tops(array_agg(name)) FROM article_categories GROUP BY url_id`,
  `INSERT INTO article_reach (markets, countries, top_categories, articles)
   SELECT markets, market_countries(markets), top_categories, count(*)::int FROM (
     SELECT p.url_id, array_agg((p.country || ':' || p.language) COLLATE "C" ORDER BY (p.country || ':' || p.language) COLLATE "C") AS markets,
            coalesce(t.top_categories, '{}') AS top_categories
     FROM url_profiles p LEFT JOIN article_tops t ON t.url_id = p.url_id
     GROUP BY p.url_id, t.top_categories) s
   GROUP BY markets, top_categories`,
  `ANALYZE article_tops, article_reach`,
];
