// The events of GET .../matches/stream: where a stream starts (new, `since_minutes` back, or resumed
// from its Last-Event-ID) and its reads (publications found after a position, once per group of
// streams of the same list, scope and filters).
import type { Context } from 'hono';
import { digest } from '../../shared/http/cursor';
import type { Env } from '../../shared/env';
import { badRequest } from '../../shared/http/errors';
import { type Event, READ_EVENTS } from '../../shared/streams/hub';
import { listTopic } from '../../shared/streams/signal';
import type { StreamSource } from '../../shared/streams/stream';
import { resumeOf, tokenSigner } from '../../shared/streams/token';
import { DAY_MS } from '../../shared/time/windows';
import { publicationOf } from './serialize';
import { compareFound, type Found, latestFound, readFound, type StreamFilter } from './matches-stream-query';

/** Rows per read: the hub's most events per read (a group reads only with room for them). */
const READ_LIMIT = READ_EVENTS;

interface MatchesStart {
  filter: Omit<StreamFilter, 'from'>;
  binding: string;
  sinceMinutes: number;
  now: Date;
}

export async function matchesSource(c: Context<Env>, o: MatchesStart): Promise<{ source: StreamSource<Found>; start: Found | null }> {
  const { db, config, clock, auth } = c.var;
  const resume = await resumeOf(c, o.binding);
  let start: Found | null = null;
  if (resume) {
    const [us, u] = resume.k as unknown[];
    if (!Number.isSafeInteger(us) || !(u === null || typeof u === 'string') || resume.k.length !== 2)
      throw badRequest('Invalid Last-Event-ID: it is malformed. Open the stream again without it.');
    start = { us: us as number, u: u as string | null };
  } else if (o.sinceMinutes > 0) start = { us: (o.now.getTime() - o.sinceMinutes * 60_000) * 1000, u: null };
  const sign = tokenSigner(c, o.binding, 0, 0);
  const source: StreamSource<Found> = {
    topic: listTopic(o.filter.listId),
    group: await digest('matches-stream', config.DATABASE_URL, JSON.stringify(o.filter), String(auth.historyDays)),
    event: 'publication',
    compare: compareFound,
    async read(after) {
      if (after === null) return { events: [], head: { us: await latestFound(db, o.filter.listId), u: null }, more: false };
      const from = new Date(clock.now().getTime() - auth.historyDays * DAY_MS);
      const r = await readFound(db, { ...o.filter, from }, after, READ_LIMIT);
      const events: Event<Found>[] = r.rows.map((row) => ({
        pos: { us: Number(row.us), u: row.id },
        data: JSON.stringify({
          list_id: o.filter.listId,
          publication: publicationOf(row, config.APP_URL, row.mentions[0]?.snippet ?? ''),
          hits: { count: row.mentions.length, mentions: row.mentions },
        }),
        at: Number(row.us) / 1000,
      }));
      const more = r.rows.length === READ_LIMIT;
      return { events, head: more ? events.at(-1)!.pos : { us: Math.max(r.head, after.us), u: null }, more };
    },
    accept: () => true,
    token: (pos) => sign([pos.us, pos.u]),
  };
  return { source, start };
}
