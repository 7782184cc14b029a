// In-isolate sharing of the push streams (docs/PERFORMANCE.md "Streams"). Every stream of an isolate
// ticks on its own timer, in its own request; what they share is plain memory, never I/O objects:
// - the signals: one Redis call per isolate per second reads the auth version and every topic a
//   stream listens to (whichever stream ticks first after a second makes it);
// - the groups: streams of one scope and filters share one reader. When the topic's signal moved, the
//   first stream to notice claims the group's next read (one query from the group's head), appends
//   what it finds to the group's buffer, and every stream of the group sends from there what lies
//   after its own position. A stream behind the buffer (a backfill, a resume) reads on its own until
//   it reaches it.
import { authVersionKey } from '../auth/version';
import type { Store } from '../redis';
import { signalKey } from './signal';

/** How often an isolate reads the signals (and the auth version) while a stream is open. */
export const POLL_MS = 1_000;
/** A claimed read that has not finished after this long (its stream went away) may be claimed again. */
const CLAIM_MS = 15_000;
/** Events a group keeps for streams that fall a little behind. */
const BUFFER_EVENTS = 2_000;

interface Signals {
  values: Map<string, string | null>;
  authVersion: number | null;
  polledAt: number;
  polling: boolean;
  /** Topics with open streams, counted. */
  topics: Map<string, number>;
}

const hubs = new Map<string, Signals>();

function signalsOf(store: Store): Signals {
  let s = hubs.get(store.prefix);
  if (!s) hubs.set(store.prefix, (s = { values: new Map(), authVersion: null, polledAt: 0, polling: false, topics: new Map() }));
  return s;
}

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

export interface Group<P> {
  head: P | null;
  /** Events after `base`, up to `head`, in order. */
  events: Event<P>[];
  base: P | null;
  /** The signal value `head` reflects (read before the read that reached it began). */
  seen: string | null | undefined;
  claimedAt: number;
}

const groups = new Map<string, Group<unknown>>();
const members = new Map<string, number>();

export function joinGroup<P>(id: string): { group: Group<P>; leave(): void } {
  let g = groups.get(id) as Group<P> | undefined;
  if (!g) groups.set(id, (g = { head: null, events: [], base: null, seen: undefined, claimedAt: 0 }) as Group<unknown>);
  members.set(id, (members.get(id) ?? 0) + 1);
  return {
    group: g,
    leave() {
      const n = (members.get(id) ?? 1) - 1;
      if (n > 0) members.set(id, n);
      else {
        members.delete(id);
        groups.delete(id);
      }
    },
  };
}

/** Claims the group's next read; false while another stream's read is under way. */
export function claim(g: Group<unknown>, nowMs = Date.now()): boolean {
  if (g.claimedAt && nowMs - g.claimedAt < CLAIM_MS) return false;
  g.claimedAt = nowMs;
  return true;
}

/** Appends a read's events and moves the head; keeps the last BUFFER_EVENTS. */
export function advance<P>(g: Group<P>, events: Event<P>[], head: P): void {
  if (g.head === null) g.base = head;
  g.events.push(...events);
  g.head = head;
  const drop = g.events.length - BUFFER_EVENTS;
  if (drop > 0) g.base = g.events.splice(0, drop).at(-1)!.pos;
}

/** Groups and members alive in this isolate (benchmarks report memory per open stream). */
export const hubStats = () => ({ groups: groups.size, streams: [...members.values()].reduce((a, b) => a + b, 0) });
