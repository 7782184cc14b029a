// Whether the roll-ups an ingest kept incrementally equal a full rebuild from the source tables:
// snapshots every derived table, rebuilds inside a transaction that is rolled back, and compares.
import type { Queryable } from '../../shared/db/queryable';
import { rebuildRollups } from '../../shared/ingest/bulk/rebuild';

const SNAPSHOT: Record<string, string> = {
  url_profiles: `SELECT url_id::text, country, language, first_seen::text, last_seen::text, round(avg_position::numeric, 6)::float8,
    content_language_fit, impressions_total::float8 FROM url_profiles`,
  market_days: 'SELECT country, language, day::text, impressions::float8, new_urls FROM market_days',
  // By the keys dim_keys names: a rebuild numbers them afresh.
  dim_hours: `SELECT k.kind, k.key, h.country, h.language, h.hour::text, h.impressions::float8, round(h.position_sum::numeric, 2)::float8
    FROM dim_hours h JOIN dim_keys k ON k.id = h.key_id WHERE h.impressions <> 0 OR abs(h.position_sum) > 1e-6`,
  dim_days: `SELECT k.kind, k.key, d.country, d.language, d.day::text, d.impressions::float8
    FROM dim_days d JOIN dim_keys k ON k.id = d.key_id WHERE d.impressions <> 0`,
  url_spans: 'SELECT url_id::text, country, language, start_hour::text, end_hour::text FROM url_spans',
  url_dimensions: 'SELECT kind, key, url_id::text FROM url_dimensions',
  activity_frontier: 'SELECT hour::text FROM activity_frontier',
  dim_activity_open: 'SELECT kind, key, market, unit, item, first_hour::text FROM dim_activity_open',
  dim_activity: 'SELECT kind, key, market, unit, item, first_hour::text, end_hour::text FROM dim_activity',
  dim_activity_gaps: 'SELECT kind, key, market, unit, item, gap_start::text, gap_end::text FROM dim_activity_gaps',
  dim_activity_hours: 'SELECT kind, key, market, unit, hour::text, starts, ends FROM dim_activity_hours',
  dim_activity_days: 'SELECT kind, key, market, unit, day::text, starts, ends FROM dim_activity_days',
  entity_hours: 'SELECT country, language, hour::text, entity_id::text, mentions, articles FROM entity_hours',
  entity_days: 'SELECT country, language, day::text, entity_id::text, mentions, articles FROM entity_days',
  entity_best: 'SELECT entity_id::text, country, url_id::text FROM entity_best',
  entity_category_best: 'SELECT entity_id::text, country, category, url_id::text FROM entity_category_best',
  article_tops: 'SELECT url_id::text, top_categories::text FROM article_tops',
  article_reach: 'SELECT markets::text, countries::text, top_categories::text, articles FROM article_reach',
  entity_hour_tops: 'SELECT entity_id::text, country, language, hour::text, url_id::text FROM entity_hour_tops',
  entity_day_tops: 'SELECT entity_id::text, country, language, day::text, url_id::text FROM entity_day_tops',
  trend_days: 'SELECT trend_id::text, day::text, articles FROM trend_days',
  // By the arrays the set ids name: a rebuild numbers the sets afresh.
  hierarchy_articles: `SELECT h.level, h.node_id::text, h.url_id::text, t.items AS trend_markets, a.items AS article_markets, c.items AS categories
    FROM hierarchy_articles h
    JOIN hierarchy_sets t ON t.id = h.trend_set JOIN hierarchy_sets a ON a.id = h.article_set JOIN hierarchy_sets c ON c.id = h.category_set`,
  hierarchy_signatures: `SELECT h.level, h.node_id::text, t.items AS trend_markets, a.items AS article_markets, c.items AS categories, h.n_articles
    FROM hierarchy_signatures h
    JOIN hierarchy_sets t ON t.id = h.trend_set JOIN hierarchy_sets a ON a.id = h.article_set JOIN hierarchy_sets c ON c.id = h.category_set`,
  hierarchy_counts: 'SELECT level, node_id::text, market, n_articles FROM hierarchy_counts',
};

async function snapshot(db: Queryable): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  for (const [table, sql] of Object.entries(SNAPSHOT)) {
    out.set(table, new Set((await db.query(sql)).rows.map((r) => JSON.stringify(Object.values(r as object)))));
  }
  return out;
}

/** Table names whose incremental rows differ from a rebuild (empty: exact). */
export async function rollupsDiffer(db: Queryable): Promise<string[]> {
  const kept = await snapshot(db);
  // rebuildRollups commits its own transaction: swallow that COMMIT and roll everything back instead.
  const held: Queryable = {
    query: (text, values) => (text === 'COMMIT' ? Promise.resolve({ rows: [], rowCount: 0 }) : db.query(text, values)),
  };
  try {
    await rebuildRollups(held);
    const rebuilt = await snapshot(db);
    return [...kept]
      .filter(([table, rows]) => {
        const other = rebuilt.get(table)!;
        return rows.size !== other.size || [...rows].some((r) => !other.has(r));
      })
      .map(([table]) => table);
  } finally {
    await db.query('ROLLBACK').catch(() => undefined);
  }
}
