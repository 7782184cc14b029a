// The auth version: a counter in Redis that every key revocation and plan or subscription change
// bumps (shared/admin/announce.ts). Each limits call reads it in the same pipeline (shared/limits/edge.ts,
// strict mode included); an isolate decides a request without Redis only while its last read is
// younger than AUTH_VERSION_FRESH_MS (shared/limits/edge.ts); a new value drops
// the isolate's cached keys and edge states, so a change reaches every isolate within 2 s.
import { namespaces, redisNamespaces } from '../cache/namespaces';
import type { Store } from '../db/redis';
import { forgetCachedKeys, shortenCachedKeys } from './keys';

/** The last version seen, per deployment (Redis namespace), and when it was read (wall time). */
const { seen, readAt } = namespaces.authVersions;

/** How old the version read may be for a cached key to be honoured without asking Redis. */
export const AUTH_VERSION_FRESH_MS = 1_000;

export const authVersionKey = (store: Store) => store.key(redisNamespaces.authVersion.name);

/**
 * Records the version just read; true when it differs from the last one seen (or none was seen yet,
 * when the keys cached so far were read without it). A change forgets the cached keys; the first
 * read forgets those older than AUTH_VERSION_FRESH_MS and lets the others answer for that long
 * (`shortenCachedKeys`): either way a change reaches the isolate within 2 s.
 */
export function observeAuthVersion(store: Store, version: number): boolean {
  const first = !seen.has(store.prefix);
  const changed = seen.get(store.prefix) !== version;
  seen.set(store.prefix, version);
  readAt.set(store.prefix, Date.now());
  if (first) shortenCachedKeys(AUTH_VERSION_FRESH_MS);
  else if (changed) forgetCachedKeys();
  return changed;
}

/** True while the version was read less than AUTH_VERSION_FRESH_MS ago (by any key's limits call). */
export function authVersionFresh(store: Store, nowMs = Date.now()): boolean {
  return nowMs - (readAt.get(store.prefix) ?? -Infinity) < AUTH_VERSION_FRESH_MS;
}

/** The version this isolate last read (null before its first read). */
export function authVersionSeen(store: Store): number | null {
  return seen.get(store.prefix) ?? null;
}

/** Tests and benchmarks: no version seen yet, as in a fresh isolate. */
export function forgetAuthVersions(): void {
  seen.clear();
  readAt.clear();
}
