// In-isolate sharing of the push streams (docs/PERFORMANCE.md "Streams"). Every stream of an isolate
// ticks on its own timer, in its own request; what they share is plain memory, never I/O objects:
// - the signals: one Redis call per isolate per second reads the auth version and every topic a
//   stream listens to (whichever stream ticks first after a second makes it);
// - the groups: streams of one scope and filters share one reader. When the topic's signal moved, the
//   first stream to notice claims the group's next read (one query from the group's head, or another
//   isolate's result of that same read: shared/streams/read-once.ts), appends what it finds to the
//   group's buffer, and every stream of the group sends from there what lies after its own position.
//   A stream behind the buffer (a backfill, a resume) reads on its own until it reaches it. A group
//   reads further only while its buffer has room beside what its slowest member has still to send, so
//   a burst larger than the buffer goes at its readers' pace and never trims what one has not sent; a
//   member that stops reading altogether holds the group back for STALL_MS at most.
import { authVersionKey } from '../auth/version';
import { namespaces } from '../cache/namespaces';
import type { Store } from '../db/redis';
import { signalKey } from './signal';

/** How often an isolate reads the signals (and the auth version) while a stream is open. */
export const POLL_MS = 1_000;
/** A claimed read that has not finished after this long (its stream went away) may be claimed again. */
const CLAIM_MS = 15_000;
/** Events a group keeps for streams that fall a little behind. */
export const BUFFER_EVENTS = 2_000;
/** The most events one read brings (the sources' row limit): a group reads only with this much room. */
export const READ_EVENTS = 200;
/** A member whose oldest unsent event is this old no longer holds its group's reads back. */
const STALL_MS = 10_000;
/** How long a group's room check stands (every member's tick asks; the answer changes per read). */
const ROOM_MS = 100;

interface Signals {
  values: Map<string, string | null>;
  authVersion: number | null;
  polledAt: number;
  polling: boolean;
  /** Topics with open streams, counted. */
  topics: Map<string, number>;
  /** The slots of this isolate's open streams (stream id -> its key's slot set), renewed together (slots.ts). */
  slots: Map<string, string>;
  slotsRenewedAt: number;
}

declare module '../cache/namespaces' {
  interface NamespaceValues {
    streamSignals: Signals;
    streamGroups: Group<unknown>;
  }
}

const hubs = namespaces.streams.signals;

function signalsOf(store: Store): Signals {
  let s = hubs.get(store.prefix);
  if (!s)
    hubs.set(
      store.prefix,
      (s = { values: new Map(), authVersion: null, polledAt: 0, polling: false, topics: new Map(), slots: new Map(), slotsRenewedAt: 0 }),
    );
  return s;
}

/** This isolate's open slots under `store`'s namespace (shared/streams/slots.ts takes, renews and releases them). */
export const heldSlots = (store: Store): Pick<Signals, 'slots' | 'slotsRenewedAt'> => signalsOf(store);

export function listen(store: Store, topic: string): () => void {
  const s = signalsOf(store);
  s.topics.set(topic, (s.topics.get(topic) ?? 0) + 1);
  return () => {
    const n = (s.topics.get(topic) ?? 1) - 1;
    if (n > 0) s.topics.set(topic, n);
    else s.topics.delete(topic);
  };
}

/** Reads the signals if the last read is older than POLL_MS (one MGET for the isolate). */
export async function pollSignals(store: Store, nowMs = Date.now()): Promise<void> {
  const s = signalsOf(store);
  if (s.polling || nowMs - s.polledAt < POLL_MS) return;
  s.polling = true;
  try {
    const topics = [...s.topics.keys()];
    const values = await store.redis.mget<(string | number | null)[]>(authVersionKey(store), ...topics.map((t) => signalKey(store, t)));
    s.authVersion = Number(values[0] ?? 0);
    for (const [i, t] of topics.entries()) s.values.set(t, values[i + 1] === null ? null : String(values[i + 1]));
    s.polledAt = Date.now();
  } finally {
    s.polling = false;
  }
}

/** The topic's signal as last read (undefined: not read yet). */
export const signalOf = (store: Store, topic: string) => signalsOf(store).values.get(topic);
export const authVersionOf = (store: Store) => signalsOf(store).authVersion;

export interface Event<P> {
  pos: P;
  /** The event's data, serialised once for every stream of the group. */
  data: string;
  /** What a stream's own filter looks at (e.g. first_seen for the since floor). */
  at: number;
}

export interface Member<P> {
  /** Where the member's stream is: the last event it sent or passed (null: not placed yet). */
  pos: P | null;
}

export interface Group<P> {
  head: P | null;
  /** Events after `base`, up to `head`, in order. */
  events: Event<P>[];
  /** When each event of `events` was appended (wall time). */
  addedAt: number[];
  base: P | null;
  /** The signal value `head` reflects (read before the read that reached it began). */
  seen: string | null | undefined;
  claimedAt: number;
  members: Set<Member<P>>;
  room: { at: number; ok: boolean };
}

const groups = namespaces.streams.groups;

const newGroup = <P>(): Group<P> => ({
  head: null,
  events: [],
  addedAt: [],
  base: null,
  seen: undefined,
  claimedAt: 0,
  members: new Set(),
  room: { at: 0, ok: true },
});

export function joinGroup<P>(id: string): { group: Group<P>; member: Member<P>; leave(): void } {
  const group = (groups.get(id) as Group<P> | undefined) ?? newGroup<P>();
  groups.set(id, group as Group<unknown>);
  const member: Member<P> = { pos: null };
  group.members.add(member);
  return {
    group,
    member,
    leave() {
      group.members.delete(member);
      if (group.members.size === 0 && groups.get(id) === group) groups.delete(id);
    },
  };
}

/** Claims the group's next read; false while another stream's read is under way. */
export function claim(g: Group<unknown>, nowMs = Date.now()): boolean {
  if (g.claimedAt && nowMs - g.claimedAt < CLAIM_MS) return false;
  g.claimedAt = nowMs;
  return true;
}

/** The index in the buffer of the first event after `pos` (the buffer is in position order). */
export function firstAfter<P>(g: Group<P>, pos: P, compare: (a: P, b: P) => number): number {
  let lo = 0;
  let hi = g.events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compare(g.events[mid].pos, pos) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Whether the group may read further: a read of READ_EVENTS still fits in the buffer beside what its
 * slowest member has to send, so trimming never drops an event a reading member has not sent. Members
 * behind the buffer (reading on their own) and stalled ones (their oldest unsent event older than
 * STALL_MS) do not count: they catch up on their own reads.
 */
export function roomToRead<P>(g: Group<P>, compare: (a: P, b: P) => number, nowMs = Date.now()): boolean {
  if (nowMs - g.room.at < ROOM_MS) return g.room.ok;
  let pending = 0;
  for (const m of g.members) {
    if (m.pos === null || (g.base !== null && compare(m.pos, g.base) < 0)) continue;
    const next = firstAfter(g, m.pos, compare);
    if (next < g.events.length && nowMs - g.addedAt[next] >= STALL_MS) continue;
    pending = Math.max(pending, g.events.length - next);
  }
  g.room = { at: nowMs, ok: pending + READ_EVENTS <= BUFFER_EVENTS };
  return g.room.ok;
}

/** Appends a read's events and moves the head; keeps the last BUFFER_EVENTS. */
export function advance<P>(g: Group<P>, events: Event<P>[], head: P, nowMs = Date.now()): void {
  if (g.head === null) g.base = head;
  g.events.push(...events);
  for (let i = 0; i < events.length; i++) g.addedAt.push(nowMs);
  g.head = head;
  g.room.at = 0;
  const drop = g.events.length - BUFFER_EVENTS;
  if (drop > 0) {
    g.base = g.events.splice(0, drop).at(-1)!.pos;
    g.addedAt.splice(0, drop);
  }
}

/** Tests: streams opened from now on form new groups, as in another isolate (open ones keep theirs). */
export function groupsAfresh(): void {
  groups.clear();
}

/** Groups and members alive in this isolate (benchmarks report memory per open stream). */
export const hubStats = () => ({ groups: groups.size, streams: [...groups.values()].reduce((n, g) => n + g.members.size, 0) });
