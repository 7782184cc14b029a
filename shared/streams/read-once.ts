// One group read per scope and new-data event across isolates (docs/PERFORMANCE.md "Streams"). Each
// isolate's streams of a scope form a group (shared/streams/hub.ts); when the signal moves, every
// isolate holding the scope would read the same rows from the same head. The first to ask takes a short
// lock in Redis, reads, and leaves the result under (group, signal, head); the others take it from
// there. With Redis unreachable each isolate reads for itself, as a lone isolate does.
import { redisNamespaces } from '../cache/namespaces';
import type { Store } from '../db/redis';
import type { Event } from './hub';

export interface GroupRead<P> {
  events: Event<P>[];
  head: P;
  more: boolean;
}

/** A reader that went away frees the read after this (the hub's claim lasts as long). */
const LOCK_MS = 15_000;
/** How long a result waits for the other isolates (they read the signals every second). */
const RESULT_MS = 120_000;

const readKey = (store: Store, group: string, signal: string | null | undefined, head: unknown) =>
  store.key(redisNamespaces.streams.name, 'read', group, String(signal), JSON.stringify(head));

/**
 * The group's read from `head` after `signal`: another isolate's result, or this one's `read()`; null
 * while another isolate is reading it (ask again on a later tick).
 */
export async function readOnce<P>(
  store: Store,
  group: string,
  signal: string | null | undefined,
  head: P,
  read: () => Promise<GroupRead<P>>,
): Promise<GroupRead<P> | null> {
  const key = readKey(store, group, signal, head);
  const lock = `${key}:lock`;
  let found: unknown[];
  try {
    const p = store.text.pipeline();
    p.get(key);
    p.set(lock, '1', { nx: true, px: LOCK_MS });
    found = await p.exec();
  } catch {
    return read();
  }
  const [stored, locked] = found as [string | null, string | null];
  if (stored !== null) return JSON.parse(stored) as GroupRead<P>;
  if (locked !== 'OK') return null;
  let r: GroupRead<P>;
  try {
    r = await read();
  } catch (err) {
    await store.text.del(lock).catch(() => undefined);
    throw err;
  }
  await store.text.set(key, JSON.stringify(r), { px: RESULT_MS }).catch(() => store.text.del(lock).catch(() => undefined));
  return r;
}
