// One page of the feed or the live feed: cursor or offset, windows brought to the current hour,
// count, and keys with their items in one statement; `next_cursor` and the `Link: rel="next"` URL for the page after it.
import type { Context } from 'hono';
import { cursorSecret, digest, openCursor, signCursor } from '../../shared/http/cursor';
import type { Env } from '../../shared/env';
import { invalid } from '../../shared/http/errors';
import { slideIfBehind, windowEnd } from '../../shared/feed/windows';
import { DAY_MS as DAY } from '../../shared/time/windows';
import type { FeedItem } from '../../shared/schemas/feed-item';
import { countProfiles, readPage, type FeedFilter, type Keyset, type PageRequest } from './queries';
import type { SortKey } from './schemas';
import { toFeedItem } from './serialize';

export interface PageParams {
  /** Route name and every parameter that shapes the result set (not limit, offset, cursor, markdown). */
  binding: Record<string, unknown>;
  sort: SortKey;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
  cursor?: string;
  markdown: boolean;
  /** Builds the filter for the iteration's "now" (pinned by the cursor on later pages). */
  filter(now: Date): FeedFilter;
}

export interface FeedPage {
  items: FeedItem[];
  total: number;
  limit: number;
  offset: number;
  next_cursor: string | null;
  /** The iteration's "now". */
  now: Date;
}

/** "Now" of a first page: whole minutes, so answers (and their cursors and ETags) repeat within a minute. */
export const feedNow = (clock: Date) => new Date(Math.floor(clock.getTime() / 60_000) * 60_000);

/** Who may use a cursor: the project (or the project-less key) and its markets. */
const owner = (c: Context<Env>) => c.var.auth.projectId ?? `key:${c.var.auth.keyId}`;

export async function feedPage(c: Context<Env>, p: PageParams): Promise<FeedPage> {
  const { db, clock, config } = c.var;
  const realNow = clock.now();
  const secret = cursorSecret(config);
  const binding = await digest(
    owner(c),
    JSON.stringify(c.var.auth.allowedCountries),
    JSON.stringify(c.var.auth.categories),
    JSON.stringify(p.binding),
  );
  let now = feedNow(realNow);
  let after: Keyset | null = null;
  let pinnedTotal: number | null = null;
  let snapshot: number | null = null;
  if (p.cursor !== undefined) {
    if (p.offset !== 0) throw invalid(['query', 'offset'], 'offset cannot be combined with cursor');
    const payload = await openCursor(secret, p.cursor, binding, realNow);
    now = new Date(payload.n);
    after = payload.k as Keyset;
    pinnedTotal = payload.t;
    snapshot = payload.s;
  }
  const filter = p.filter(now);
  const page: PageRequest = { sort: p.sort, order: p.order, limit: p.limit, offset: p.offset, after, snapshot };
  const end = windowEnd(realNow);
  const today = Math.floor((end.getTime() - 1) / DAY) * DAY;
  const items = { end, dayStart: new Date(today - 29 * DAY), markdown: p.markdown };
  let [{ asOf, version, keys, items: rows }, total] = await Promise.all([
    readPage(db, filter, page, items),
    pinnedTotal ?? countProfiles(db, filter, filter.seenAfter !== null && filter.seenAfter.getTime() < now.getTime() - 7 * DAY),
  ]);
  // The hour moved since the cron last slid the windows: slide now (one transaction; concurrent
  // requests wait on the state row and find the work done), then read the page again.
  if (await slideIfBehind(db, end, new Date(asOf))) ({ version, keys, items: rows } = await readPage(db, filter, page, items));
  const more = keys.length > p.limit;
  const last = (more ? keys.slice(0, p.limit) : keys).at(-1);
  // Without a trusted key (shared/http/cursor.ts cursorSecret) paging is by offset only: next_cursor null.
  const next_cursor =
    more && last && secret
      ? await signCursor(secret, {
          b: binding,
          k: [last.sk, last.url_id, last.country, last.language],
          n: now.toISOString(),
          t: total,
          // The first page read the values of `version`; every later page reads them as of it.
          s: snapshot ?? version,
        })
      : null;
  const shownAt = feedNow(realNow);
  return {
    items: rows.map((r) => toFeedItem(r, config.APP_URL, shownAt)),
    total,
    limit: p.limit,
    offset: p.cursor ? 0 : p.offset,
    next_cursor,
    now,
  };
}

/** The request's URL with `cursor` set to the next page's (and no offset): the `Link: rel="next"` target. */
export function nextLink(requestUrl: string, cursor: string): string {
  const url = new URL(requestUrl);
  url.searchParams.delete('offset');
  url.searchParams.set('cursor', cursor);
  return `<${url.pathname}${url.search}>; rel="next"`;
}
