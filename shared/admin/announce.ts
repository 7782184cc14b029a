// Tells every isolate that keys or plans changed: bumps the auth version (shared/auth/version.ts),
// which the isolates read with their limits, so a revocation or a plan or subscription change is
// honoured everywhere within 2 s instead of the key cache's 30 s.
import { authVersionKey } from '../auth/version';
import type { Store } from '../db/redis';

export async function announceAuthChange(store: Store): Promise<void> {
  await store.redis.incr(authVersionKey(store));
}
