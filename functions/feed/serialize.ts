// Item rows -> the spec's feed item: lower-case market codes, `HH:MM:SS` lifespans, window counts.
import { cabinetUrl, iso, round } from '../../shared/format';
import { WINDOW_NAMES } from '../../shared/feed/windows';
import type { FeedItem } from '../../shared/schemas/feed-item';
import type { ItemRow } from './items';

const EMPTY_META = { meta_title: '', meta_description: '', headline: '', section: '' };
const EMPTY_ENRICHMENT = { actors: [], topic: [], format_group: '', format_type: '', entities: {} };

/** Seconds as `HH:MM:SS`; hours keep growing past 99 (`123:00:00`). */
export function lifespan(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

/** Change against the previous window in percent, one decimal; null when there is nothing to compare with. */
export function deltaPct(current: number, previous: number | null): number | null {
  // Tenths from whole numbers: (c - p) * 1000 is exact, so a half (211.25) rounds up like the spec's
  // arithmetic, not down through the float 2112.4999... of ((c - p) / p) * 100 * 10.
  return previous === null || previous === 0 ? null : Math.round(((current - previous) * 1000) / previous) / 10;
}

function windowCount(windows: ItemRow['windows'], name: string) {
  const current = Number(windows?.[`imp_${name}`] ?? 0);
  const raw = windows ? windows[`prev_${name}`] : null;
  const previous = raw === null || raw === undefined ? null : Number(raw);
  return { current, previous, delta_pct: deltaPct(current, previous) };
}

/**
 * `now`: the answer's time. The ingest keeps `last_seen` as the end of the last active hour; while
 * that hour is still running, the latest observation is now, never later (lifespan counts to it).
 */
export function toFeedItem(row: ItemRow, appUrl: string, now: Date): FeedItem {
  const lastSeen = new Date(Math.min(new Date(row.last_seen).getTime(), now.getTime()));
  const impressions = Object.fromEntries(WINDOW_NAMES.map((n) => [`last_${n}`, windowCount(row.windows, n)])) as Pick<
    FeedItem['impressions'],
    'last_1h' | 'last_24h' | 'last_7d' | 'last_30d'
  >;
  return {
    url_id: row.url_id,
    url: row.url,
    domain: row.domain,
    favicon: row.favicon,
    country: row.country.toLowerCase(),
    language: row.language.toLowerCase(),
    title: row.title,
    summary: row.summary,
    publisher: row.publisher,
    first_seen: iso(row.first_seen),
    last_seen: iso(lastSeen),
    lifespan: lifespan((lastSeen.getTime() - new Date(row.first_seen).getTime()) / 1000),
    avg_position: round(Number(row.avg_position), 2),
    impressions: { ...impressions, breakdown: { hourly_24h: row.hourly.map(Number), daily_30d: row.daily.map(Number) } },
    content_language: row.content_language,
    content_language_fit: row.content_language_fit,
    date_published: iso(row.date_published),
    date_modified: iso(row.date_modified),
    article_meta: { ...EMPTY_META, ...(row.meta ?? {}) },
    enrichment: { ...EMPTY_ENRICHMENT, ...(row.enrichment ?? {}) },
    categories: row.categories,
    rss_feeds: row.rss_feeds ?? null,
    trend: row.trend,
    entities: row.entities,
    images: row.images ?? [],
    markdown_content: row.markdown_content,
    refreshed_at: iso(row.refreshed_at),
    cabinet_url: cabinetUrl(appUrl, 'article', row.url_id),
  };
}
