// The demo keeps moving: every minute, through the ingest path, recently seen URLs gain impressions in
// the current hour and new URLs are first seen (so /v2/live and 1h windows move). On start, hours
// missed while the demo was stopped are topped up. Seeded per minute: the same minute, the same data.
import type { Queryable } from '../../shared/db/queryable';
import { ingest } from '../../shared/ingest/index';
import { Rng } from '../generate/prng';
import { titles } from '../generate/templates';

const HOUR = 3_600_000;
const MAX_TOP_UP_HOURS = 7 * 24;

interface Profile {
  url_id: string;
  country: string;
  language: string;
}

const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / HOUR) * HOUR);

function uuidFrom(rng: Rng): string {
  const hex = Array.from({ length: 32 }, () => rng.int(0, 15).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

async function newArticle(db: Queryable, rng: Rng, at: Date): Promise<object[]> {
  const {
    rows: [{ n }],
  } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM articles');
  const {
    rows: [template],
  } = await db.query<Record<string, any>>(
    `SELECT a.*, coalesce((SELECT json_agg(json_build_object('name', e.name, 'type', ae.type, 'kg_id', e.kg_id)) FROM article_entities ae JOIN entities e ON e.id = ae.entity_id WHERE ae.url_id = a.id), '[]') AS ents,
            coalesce((SELECT json_agg(json_build_object('name', c.name, 'confidence', c.confidence)) FROM article_categories c WHERE c.url_id = a.id), '[]') AS cats,
            (SELECT json_agg(json_build_object('country', p.country, 'language', p.language)) FROM url_profiles p WHERE p.url_id = a.id) AS markets
     FROM articles a ORDER BY a.id OFFSET $1 LIMIT 1`,
    [rng.int(0, Math.max(0, n - 1))],
  );
  if (!template?.markets) return [];
  const id = uuidFrom(rng);
  const names = (template.ents as { name: string }[]).map((e) => e.name);
  const slot = {
    E: names[0] ?? template.publisher,
    E2: names[1] ?? template.publisher,
    K: template.title.split(' ')[1] ?? 'news',
    K2: 'update',
    P: template.publisher,
    weekday: at.getUTCDay(),
  };
  const { title, titleEn } = titles(rng, template.content_language, slot, slot);
  const seen = at.toISOString();
  const market = rng.pick(template.markets as { country: string; language: string }[]);
  return [
    {
      type: 'article',
      id,
      url: `https://${template.domain}/live/${id.slice(0, 8)}`,
      domain: template.domain,
      publisher: template.publisher,
      favicon_url: template.favicon_url,
      title,
      title_en: titleEn,
      summary: template.summary,
      body: template.body,
      content_language: template.content_language,
      date_published: seen,
      date_modified: seen,
      meta: template.meta,
      enrichment: template.enrichment,
      rss_feeds: null,
      images: template.images,
      markdown_content: null,
      first_seen_at: seen,
      refreshed_at: seen,
      categories: template.cats,
      entities: (template.ents as { name: string; type: string; kg_id: string | null }[]).map((e) => ({
        name: e.name,
        type: e.type,
        ...(e.kg_id && { kg_id: e.kg_id }),
        mentions: 1,
        unified_score: 0.5,
        embedding_similarity: 0.5,
        source: 'live',
      })),
    },
    {
      type: 'observation',
      url_id: id,
      country: market.country,
      language: market.language,
      hour: hourOf(at).toISOString(),
      impressions: rng.int(20, 400),
      position: rng.uniform(1, 12),
    },
  ];
}

/** One step: `newUrls` first-seen URLs and more impressions for up to `boosts` recently active profiles, ingested. */
export async function liveStep(db: Queryable, at: Date, newUrls: number, boosts: number) {
  return ingest(db, await liveLines(db, at, newUrls, boosts));
}

/**
 * The NDJSON lines of one step (`npm start` drops them into the bucket: scripts/dev.ts). Seeded by the
 * step's second: the same `at` repeats the same step, steps a second or more apart (npm start's
 * LIVE_STEP_MS may be under a minute) add other URLs.
 */
export async function liveLines(db: Queryable, at: Date, newUrls: number, boosts: number): Promise<string[]> {
  const rng = new Rng(Math.floor(at.getTime() / 1000));
  const hour = hourOf(at);
  const { rows: active } = await db.query<Profile & { impressions: number | null }>(
    `SELECT p.url_id::text, p.country, p.language, o.impressions FROM url_profiles p
     LEFT JOIN observations o ON (o.url_id, o.country, o.language, o.hour) = (p.url_id, p.country, p.language, $2)
     WHERE p.last_seen >= $1 ORDER BY p.last_seen DESC, p.url_id LIMIT 200`,
    [new Date(hour.getTime() - 6 * HOUR).toISOString(), hour.toISOString()],
  );
  const records: object[] = [];
  for (let i = 0; i < Math.min(boosts, active.length); i++) {
    const p = active[rng.int(0, active.length - 1)];
    // An observation replaces its hour, so the new value is the hour's total so far plus this minute.
    records.push({
      type: 'observation',
      url_id: p.url_id,
      country: p.country,
      language: p.language,
      hour: hour.toISOString(),
      impressions: (p.impressions ?? 0) + Math.floor(rng.next() ** 3 * 60) + 1,
      position: rng.uniform(1, 15),
    });
    p.impressions = null; // a profile picked twice in one step must not double its base
  }
  for (let i = 0; i < newUrls; i++) records.push(...(await newArticle(db, rng, at)));
  return dedupe(records).map((r) => JSON.stringify(r));
}

function dedupe(records: object[]): object[] {
  const seen = new Map<string, object>();
  for (const r of records as Record<string, string>[])
    seen.set(r.type === 'observation' ? `${r.url_id}|${r.country}|${r.language}|${r.hour}` : `${r.type}|${r.id}`, r);
  return [...seen.values()];
}

/** Fills the hours missed since the last observation (at most a week), a step per hour. */
export async function topUp(db: Queryable, now: Date): Promise<number> {
  const {
    rows: [{ last }],
  } = await db.query<{ last: Date | null }>('SELECT max(hour) AS last FROM observations');
  if (!last) return 0;
  const start = Math.max(new Date(last).getTime() + HOUR, hourOf(now).getTime() - MAX_TOP_UP_HOURS * HOUR);
  let hours = 0;
  for (let t = start; t <= hourOf(now).getTime(); t += HOUR, hours++) await liveStep(db, new Date(t + 30 * 60_000), 4, 60);
  return hours;
}
