// The auth version: a counter in Redis that every key revocation and plan or subscription change
// bumps (shared/admin/announce.ts). Each limits call reads it in the same pipeline (shared/limits/edge.ts,
// strict mode included), at least every FRESH_MS while the isolate answers a key; a new value drops
// the isolate's cached keys and edge states, so a change reaches every isolate within 2 s.
import type { Store } from '../redis';
import { forgetCachedKeys } from './keys';

/** The last version seen, per deployment (Redis namespace). */
const seen = new Map<string, number>();

export const authVersionKey = (store: Store) => store.key('auth-version');

/**
 * Records the version just read; true when it differs from the last one seen (or none was seen yet,
 * when the keys cached so far were read without it): the cached keys are then forgotten.
 */
export function observeAuthVersion(store: Store, version: number): boolean {
  const changed = seen.get(store.prefix) !== version;
  seen.set(store.prefix, version);
  if (changed) forgetCachedKeys();
  return changed;
}
