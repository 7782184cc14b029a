// The change signal of the push streams (docs/PERFORMANCE.md "Streams"): a counter in Redis per topic
// that the writers bump after they commit (an ingest run: `feed`; a mention list's scan: `list:<id>`).
// Open streams read every topic they listen to in one call per isolate per second (shared/streams/hub.ts)
// and query the database only when a counter moved: no new data, no query, however many listen.
import { redisNamespaces } from '../cache/namespaces';
import type { Store } from '../db/redis';

export const FEED_TOPIC = 'feed';
export const listTopic = (listId: string) => `list:${listId}`;

export const signalKey = (store: Store, topic: string) => store.key(redisNamespaces.streams.name, 'signal', topic);

/** Tells every open stream of `topic` that new data committed. */
export async function announce(store: Store, topic: string): Promise<void> {
  await store.redis.incr(signalKey(store, topic));
}

/**
 * The writers' hook (IngestOptions.announce, the scan's callers): never fails the write it follows. A
 * lost signal delays delivery to the next one; nothing is lost (streams resume from their position).
 */
export function announcer(store: Store, topic: string, log: (line: string) => void = console.warn): () => Promise<void> {
  return () => announce(store, topic).catch((err: Error) => log(`stream signal ${topic} not sent: ${err.message}`));
}
