// Articles (one row per URL) and what hangs off them: a publisher row for unknown domains, the
// article's categories and entity mentions (replaced as a set), and entities first met in mentions.
import { FIT_SQL } from './observations';
import { json, lastByKey, upsert, type UpsertSpec } from './sql';
import { derive, tally, type BatchContext } from './types';
import { writeArticleCategories, writeArticleEntities } from './article-links';

const text = (name: string) => ({ name, type: 'text' });
const stamp = (name: string) => ({ name, type: 'timestamptz' });
const jsonb = (name: string) => ({ name, type: 'jsonb' });

const ARTICLES: UpsertSpec = {
  table: 'articles',
  key: ['id'],
  returning: 'id::text AS id',
  columns: [
    { name: 'id', type: 'uuid' },
    text('url'),
    text('domain'),
    text('publisher'),
    text('favicon_url'),
    text('title'),
    text('title_en'),
    text('summary'),
    text('summary_en'),
    text('body'),
    text('content_language'),
    stamp('date_published'),
    stamp('date_modified'),
    jsonb('meta'),
    jsonb('enrichment'),
    jsonb('rss_feeds'),
    jsonb('images'),
    text('markdown_content'),
    text('image_url'),
    stamp('first_seen_at'),
    stamp('refreshed_at'),
  ],
};

// A domain seen only through articles still gets a publisher row (name and favicon from the
// article); an explicit publisher line owns the row and is never overwritten from here.
const IMPLIED_PUBLISHERS: UpsertSpec = {
  table: 'publishers',
  key: ['domain'],
  columns: [text('domain'), text('name'), text('favicon_url')],
};

export async function writeArticles(ctx: BatchContext): Promise<void> {
  const items = ctx.groups.article;
  if (items.length === 0) return;
  // Two lines for one article: the later one is the article (its links must not merge).
  const records = lastByKey(
    items.map((i) => i.record),
    ['id'],
  );

  const pubs = await upsert(
    ctx.db,
    IMPLIED_PUBLISHERS,
    records.map((r) => ({
      domain: r.domain,
      name: r.publisher,
      favicon_url: r.favicon_url || null,
    })),
  );
  derive(ctx, 'publishers', { inserted: pubs.inserted });

  const rows = records.map((r) => ({
    ...r,
    meta: json(r.meta),
    enrichment: json(r.enrichment),
    rss_feeds: json(r.rss_feeds),
    images: json(r.images),
  }));
  // A bulk load copies them (sql.ts upsert), where its connection speaks COPY.
  const res = await upsert<{ id: string }>(ctx.db, ARTICLES, rows, ctx.copyFrom);
  tally(ctx, 'article', items.length, res.inserted, res.updated);

  await writeArticleEntities(ctx, records);
  await writeArticleCategories(ctx, records);

  // A corrected article can change what other tables derived from it.
  const changed = res.rows.filter((r) => !r.inserted).map((r) => r.id);
  if (changed.length === 0) return;
  const fit = await ctx.db.query(
    `UPDATE url_profiles p SET content_language_fit = ${FIT_SQL('a', 'p.language')} FROM articles a
     WHERE a.id = p.url_id AND p.url_id = ANY($1::uuid[]) AND p.content_language_fit IS DISTINCT FROM ${FIT_SQL('a', 'p.language')}
     RETURNING 1`,
    [changed],
  );
  derive(ctx, 'url_profiles', { updated: fit.rows.length });
  const trends = await ctx.db.query<{ trend_id: string }>(
    'SELECT DISTINCT trend_id::text AS trend_id FROM trend_articles WHERE url_id = ANY($1::uuid[])',
    [changed],
  );
  for (const t of trends.rows) ctx.touchedTrends.add(t.trend_id);
}
