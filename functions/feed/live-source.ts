// The events of GET /v2/live/stream: where a stream starts (new, or resumed from its Last-Event-ID),
// its backfill (the live feed's cursor read, oldest first, as of the version it opened at) and its
// live part (arrivals after a position, read once per group of streams of the same scope and filters).
import type { Context } from 'hono';
import { digest } from '../../shared/http/cursor';
import type { Env } from '../../shared/env';
import { badRequest } from '../../shared/http/errors';
import { slideIfBehind, windowEnd } from '../../shared/feed/windows';
import { type Event, READ_EVENTS } from '../../shared/streams/hub';
import { FEED_TOPIC } from '../../shared/streams/signal';
import type { StreamSource } from '../../shared/streams/stream';
import { resumeOf, tokenSigner } from '../../shared/streams/token';
import { DAY_MS } from '../../shared/time/windows';
import type { ItemRow } from './items';
import { feedNow } from './page';
import type { FeedSelection } from './params';
import { type Keyset, readPage } from './queries';
import { toFeedItem } from './serialize';
import { type Arrival, compareArrivals, currentVersion, readArrivals } from './stream-queries';

/** Rows per read, the hub's most events per read (a group reads only with room for them); a read past it continues (`more`). */
const READ_LIMIT = READ_EVENTS;
const HORIZON_MS = 1440 * 60_000;
/** Before every profile: the first backfill page's keyset (the snapshot read needs one). */
const FIRST: Keyset = ['-infinity', '00000000-0000-0000-0000-000000000000', '', ''];

interface LiveStart {
  selection: FeedSelection;
  binding: string;
  sinceMinutes: number;
  now: Date;
}

export async function liveSource(c: Context<Env>, o: LiveStart): Promise<{ source: StreamSource<Arrival>; start: Arrival | null }> {
  const { db, config, clock } = c.var;
  const resume = await resumeOf(c, o.binding);
  let snapshot = 0;
  // From the opening minute, as /v2/live counts `since`: the backfill is what that list shows then.
  let floor = feedNow(o.now).getTime() - (o.sinceMinutes || 1440) * 60_000;
  let start: Arrival | null = null;
  let backfill: Keyset | null = null;
  if (resume) {
    const k = resume.k as (string | number | null)[];
    snapshot = resume.s;
    floor = resume.t;
    if (k[0] === 'b' && k.length === 5) {
      backfill = k.slice(1) as Keyset;
      start = { v: snapshot, k: null };
    } else if (k[0] === 'a' && k.length === 5 && Number.isSafeInteger(k[1])) {
      start = { v: Number(k[1]), k: k[2] === null ? null : [String(k[2]), String(k[3]), String(k[4])] };
    } else throw badRequest('Invalid Last-Event-ID: it is malformed. Open the stream again without it.');
  } else if (o.sinceMinutes > 0) {
    snapshot = await currentVersion(db);
    start = { v: snapshot, k: null };
    backfill = FIRST;
  }
  const sign = tokenSigner(c, o.binding, snapshot, floor);
  const itemsAt = (now: Date) => {
    const end = windowEnd(now);
    const today = Math.floor((end.getTime() - 1) / DAY_MS) * DAY_MS;
    return { end, dayStart: new Date(today - 29 * DAY_MS), markdown: false };
  };
  const item = (row: ItemRow) => JSON.stringify(toFeedItem(row, config.APP_URL, feedNow(clock.now())));
  const filter = (from: number) => ({ ...o.selection, seenAfter: null, seenBefore: null, firstSeenFrom: new Date(from) });

  const source: StreamSource<Arrival> = {
    topic: FEED_TOPIC,
    group: await digest('live-stream', config.DATABASE_URL, JSON.stringify(o.selection)),
    event: 'item',
    compare: compareArrivals,
    async read(after) {
      if (after === null) return { events: [], head: { v: await currentVersion(db), k: null }, more: false };
      const now = clock.now();
      // The group reads the whole horizon; each stream keeps what lies after its own floor (accept).
      const read = () => readArrivals(db, filter(now.getTime() - HORIZON_MS), after, READ_LIMIT, itemsAt(now));
      let r = await read();
      // The hour moved since the windows last slid: slide (as a page does), then read again.
      if (await slideIfBehind(db, windowEnd(now), new Date(r.asOf))) r = await read();
      const events: Event<Arrival>[] = r.rows.map((row) => ({
        pos: { v: Number(row.seen_version), k: [row.url_id, row.country, row.language] },
        data: item(row),
        at: Date.parse(row.first_seen),
      }));
      const more = r.rows.length === READ_LIMIT;
      return { events, head: more ? events.at(-1)!.pos : { v: Math.max(r.version, after.v), k: null }, more };
    },
    accept: (e) => e.at >= floor,
    token: (pos) => sign(['a', pos.v, ...(pos.k ?? [null, null, null])]),
    prelude: backfill
      ? async function* () {
          let after: Keyset | null = backfill;
          while (after) {
            const page = await readPage(
              db,
              filter(floor),
              { sort: 'first_seen', order: 'asc', limit: READ_LIMIT, offset: 0, after, snapshot },
              itemsAt(clock.now()),
            );
            const keys = page.keys.slice(0, READ_LIMIT);
            const byKey = new Map(page.items.map((row) => [`${row.url_id}|${row.country}|${row.language}`, row]));
            const batch: { token: string | null; data: string }[] = [];
            for (const k of keys) {
              const row = byKey.get(`${k.url_id}|${k.country}|${k.language}`);
              if (row) batch.push({ token: await sign(['b', k.sk, k.url_id, k.country, k.language]), data: item(row) });
            }
            yield batch;
            const last = keys.at(-1);
            after = page.keys.length > READ_LIMIT && last ? [last.sk, last.url_id, last.country, last.language] : null;
          }
        }
      : undefined,
  };
  return { source, start };
}
