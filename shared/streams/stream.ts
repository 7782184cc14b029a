// One push stream (GET /v2/live/stream, GET .../matches/stream): the text/event-stream answer and the
// loop behind it, in the request that opened it. Its events come from its own reads while it is
// behind (backfill, resume) and from its group's shared reads once it is level (shared/streams/hub.ts).
// It ends after MAX_STREAM_MS, when its key is revoked or its plan changes (the auth version, read
// with the signals every second), when an open period finds the quota used up, or when the client goes.
import type { Context } from 'hono';
import { afterResponse } from '../http/after-response';
import { presentedKey } from '../auth/presented';
import { observeAuthVersion } from '../auth/version';
import type { Env } from '../env';
import { iso } from '../format';
import { advance, authVersionOf, claim, type Event, firstAfter, joinGroup, listen, pollSignals, roomToRead, signalOf } from './hub';
import { readOnce } from './read-once';
import { QUOTA_PERIOD_MS, renewSlots, spendPeriod } from './slots';
import { commentText, encode, eventText, HEARTBEAT_MS, MAX_STREAM_MS, retryText, STREAM_HEADERS } from './sse';

/** How often a stream looks at the shared state (no I/O unless something moved). */
const TICK_MS = 250;
/** A blank line this often between events (not an event, nor a comment a client sees): a write to a client that went away fails. */
const PROBE_MS = 1_000;

export interface Read<P> {
  events: Event<P>[];
  /** Where the next read continues: the last event's position, or the end of what exists now. */
  head: P;
  /** More events exist right now (the read stopped at its limit). */
  more: boolean;
}

export interface StreamSource<P> {
  /** The signal this stream listens to (shared/streams/signal.ts). */
  topic: string;
  /** Streams with the same group id see the same events: scope and filters, digested. */
  group: string;
  /** `event:` of each event. */
  event: string;
  compare(a: P, b: P): number;
  /** Events after `after` in the group's scope; null: none, only the current end. */
  read(after: P | null): Promise<Read<P>>;
  /** This stream's own filter over the group's events (its since floor). */
  accept(e: Event<P>): boolean;
  /** The resume token of an event (null: no trusted key to sign with, no `id:`). */
  token(pos: P): Promise<string | null>;
  /** Events before the group's (the backfill), batch by batch, each with its token. */
  prelude?: () => AsyncIterable<{ token: string | null; data: string }[]>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `maxMs`: the caller's `max_seconds`, at most MAX_STREAM_MS. */
export function eventStream<P>(
  c: Context<Env>,
  src: StreamSource<P>,
  start: P | null,
  release: () => Promise<void>,
  maxMs = MAX_STREAM_MS,
): Response {
  const lifetime = Math.min(maxMs, MAX_STREAM_MS);
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  // The client went away: the body was cancelled, which errors the writer (checked every tick). The
  // runtime learns of it when a write fails, the second after the client left: hence a probe every second.
  let gone = false;
  writer.closed.catch(() => {
    gone = true;
  });
  const { store, db, auth } = c.var;
  const key = presentedKey(c.req);
  const limits = c.var.limits;
  const send = (text: string) => writer.write(encode(text));
  const end = (reason: string, message: string) => send(`event: end\ndata: ${JSON.stringify({ reason, message })}\n\n`);

  const run = async () => {
    const unlisten = listen(store, src.topic);
    const { group, member, leave } = joinGroup<P>(src.group);
    const opened = Date.now();
    let beat = opened;
    let probed = opened;
    let spendAt = opened + QUOTA_PERIOD_MS;
    const deliver = async (events: Event<P>[]) => {
      for (const e of events) {
        if (member.pos !== null && src.compare(e.pos, member.pos) <= 0) continue;
        if (src.accept(e)) {
          const token = await src.token(e.pos);
          await send(token ? eventText(token, src.event, e.data) : `event: ${src.event}\ndata: ${e.data}\n\n`);
        }
        member.pos = e.pos;
      }
    };
    const step = async () => {
      const pos = member.pos;
      const behind = pos !== null && (group.head === null || src.compare(pos, group.base as P) < 0);
      if (behind || group.head === null) {
        // Behind the group (or no group yet): this stream reads on its own; a level read seeds the group.
        // Streams that want only what is new wait for one of them to seed it (one read, not one each).
        const seeding = pos === null;
        if (seeding && !claim(group)) return;
        const signal = signalOf(store, src.topic);
        const r = await src.read(pos).finally(() => {
          if (seeding) group.claimedAt = 0;
        });
        await deliver(r.events);
        if (member.pos === null || src.compare(r.head, member.pos) > 0) member.pos = r.head;
        if (group.head === null && !r.more) {
          advance(group, [], r.head);
          group.seen = signal;
        }
        return;
      }
      if (pos === null) member.pos = group.head;
      const signal = signalOf(store, src.topic);
      if (signal !== group.seen && roomToRead(group, src.compare) && claim(group)) {
        try {
          // Another isolate's group of this scope may be reading the same: then its result, a tick later.
          const r = await readOnce(store, src.group, signal, group.head, () => src.read(group.head));
          if (r) {
            advance(group, r.events, r.head);
            if (!r.more) group.seen = signal;
          }
        } finally {
          group.claimedAt = 0;
        }
      }
      // What lies after this stream's position, as a copy: while it waits on its client, other members'
      // reads append to the buffer and trim its front.
      const head = group.head as P;
      await deliver(group.events.slice(firstAfter(group, member.pos as P, src.compare)));
      if (src.compare(head, member.pos as P) > 0) member.pos = head;
    };
    try {
      await send(retryText());
      await pollSignals(store);
      let authSeen = authVersionOf(store);
      if (src.prelude)
        for await (const batch of src.prelude())
          for (const e of batch) await send(e.token ? eventText(e.token, src.event, e.data) : `event: ${src.event}\ndata: ${e.data}\n\n`);
      // The stream's position lives on its membership, from here on: the group paces its reads by its
      // slowest member (a backfill above is this stream's own reading, not the group's).
      member.pos = start;
      while (!gone) {
        const now = Date.now();
        if (now - opened >= lifetime) {
          await end(
            'max_duration',
            lifetime === MAX_STREAM_MS
              ? 'Streams end after 60 minutes: reconnect with Last-Event-ID to continue.'
              : 'The stream reached its max_seconds: reconnect with Last-Event-ID to continue.',
          );
          break;
        }
        await pollSignals(store).catch(() => undefined);
        await renewSlots(store);
        const version = authVersionOf(store);
        if (version !== authSeen && version !== null) {
          authSeen = version;
          observeAuthVersion(store, version);
          const { resolveKey } = await import('../auth/keys');
          const fresh = key ? await resolveKey(db, key) : null;
          if (!fresh) {
            await end('key_revoked', 'This API key was revoked or is no longer valid.');
            break;
          }
          if (JSON.stringify(fresh) !== JSON.stringify(auth)) {
            await end('plan_changed', "The key's plan or scope changed: reconnect (with Last-Event-ID) to continue under it.");
            break;
          }
        }
        if (now >= spendAt) {
          spendAt += QUOTA_PERIOD_MS;
          if (!(await spendPeriod(store, limits?.quotaKey ?? null, limits?.month?.limit ?? null))) {
            await end('quota_exceeded', 'The monthly quota is used up: an open stream spends one request per 15 minutes.');
            break;
          }
        }
        await step();
        if (now - beat >= HEARTBEAT_MS) {
          beat = probed = now;
          await send(commentText(`heartbeat ${iso(new Date(now))}`));
        } else if (now - probed >= PROBE_MS) {
          probed = now;
          await send('\n');
        }
        await sleep(TICK_MS);
      }
    } catch (err) {
      // The client went away (a write failed), or a read failed: the client resumes with its last id.
      await end('error', 'The stream was interrupted: reconnect with Last-Event-ID to continue.').catch(() => undefined);
      if (!/closed|abort|cancel|disconnect/i.test(String((err as Error)?.message))) console.error('stream ended', (err as Error)?.message);
    } finally {
      leave();
      unlisten();
      await release();
      await writer.close().catch(() => undefined);
    }
  };
  // The loop runs under waitUntil: workerd cancels a request whose client went away, and every promise
  // of it with it (the failed write, the cleanup after it), unless waitUntil holds the request open.
  // Held, the loop sees the write fail, leaves its group and gives its slot back.
  void afterResponse(c, run());
  return new Response(readable, { status: 200, headers: STREAM_HEADERS });
}
