// Stream limits (README "Plans and limits", "Streams"): at most STREAM_CAP[plan] streams open per key,
// counted in one Redis sorted set per key. Each member is a lease: it expires SLOT_LEASE_MS after it was
// taken or last renewed, and the isolate holding open streams renews all of theirs in one call every
// SLOT_RENEW_MS, so a slot whose release never arrived (its isolate died, Redis failed every try) is
// free within a minute. A slot is taken by one script that adds it only under the cap: a refused
// opening leaves nothing to give back. Opening spends one request of the monthly quota (the limits middleware), and
// every further QUOTA_PERIOD_MS open one more.
import type { AuthContext } from '../auth/types';
import type { Plan } from '../db/schema';
import { coded } from '../http/errors';
import { redisNamespaces } from '../cache/namespaces';
import type { Store } from '../db/redis';
import { heldSlots } from './hub';

/** Concurrent streams per key; keys without a project (internal) have the enterprise cap. */
export const STREAM_CAP: Record<Plan, number> = { start: 1, grow: 5, scale: 20, enterprise: 100 };

/** Each 15 minutes a stream stays open (after the first) spends one more request of the monthly quota. */
export const QUOTA_PERIOD_MS = 15 * 60_000;

/** The key's open streams (a sorted set of slots; benchmarks wait for a configuration's to be given back). */
export const slotsKey = (store: Store, keyId: string) => store.key(redisNamespaces.streams.name, 'open', keyId);
/** How often an isolate renews its open streams' slots. */
export const SLOT_RENEW_MS = 15_000;
/** A slot not renewed for this long is free (three renewals may fail before an open stream's lapses). */
export const SLOT_LEASE_MS = 4 * SLOT_RENEW_MS;
/** Tries to give a slot back at a stream's end, each later than the one before (giveBack). */
const RELEASE_TRIES = 6;

/**
 * Takes the slot `ARGV[4]` (lease until `ARGV[3]`) of the key's set `KEYS[1]` unless `ARGV[2]` are held
 * once the lapsed ones (up to `ARGV[1]`) are dropped; `{ taken (1 or 0), held }`.
 */
export const SLOT_SCRIPT = `-- discovery-api stream slots: one more unless the key's are all taken
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, ARGV[1])
local open = redis.call('ZCARD', KEYS[1])
if open >= tonumber(ARGV[2]) then return { 0, open } end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return { 1, open + 1 }`;

export const streamCap = (auth: AuthContext) => STREAM_CAP[auth.plan ?? 'enterprise'];

/** Takes a slot for stream `id` (429 `too_many_streams` when the key's are all taken); returns its release. */
export async function takeSlot(store: Store, auth: AuthContext, id: string, nowMs = Date.now()): Promise<() => Promise<void>> {
  const key = slotsKey(store, auth.keyId);
  const cap = streamCap(auth);
  const held = heldSlots(store);
  const release = (tries = 1) => {
    held.slots.delete(id);
    return giveBack(store, key, id, tries);
  };
  const args = [nowMs, cap, nowMs + SLOT_LEASE_MS, id, SLOT_LEASE_MS].map(String);
  // A call that timed out may still have taken the slot: give it back before the error answers.
  const [taken] = await store.redis.eval<string[], [number, number]>(SLOT_SCRIPT, [key], args).catch(async (err: unknown) => {
    await release();
    throw err;
  });
  if (Number(taken) !== 1)
    throw coded(
      'too_many_streams',
      `This key already has ${cap} stream${cap === 1 ? '' : 's'} open, the most its plan allows (${auth.plan ?? 'internal'}); close one, or wait for one to end, then open again.`,
      { limit: cap },
      { 'Retry-After': '5' },
    );
  if (held.slots.size === 0) held.slotsRenewedAt = nowMs;
  held.slots.set(id, key);
  // A stream's end gives its slot back under waitUntil, where it may take a few tries.
  return () => release(RELEASE_TRIES);
}

/**
 * Renews this isolate's open slots under `store` in one pipeline, at most every SLOT_RENEW_MS (open
 * streams call it every tick). `XX`: a slot given back meanwhile is not taken again; a failed renewal
 * waits for the next.
 */
export async function renewSlots(store: Store, nowMs = Date.now()): Promise<void> {
  const held = heldSlots(store);
  if (held.slots.size === 0 || nowMs - held.slotsRenewedAt < SLOT_RENEW_MS) return;
  held.slotsRenewedAt = nowMs;
  const p = store.redis.pipeline();
  const keys = new Set<string>();
  for (const [id, key] of held.slots) {
    p.zadd(key, { xx: true }, { score: nowMs + SLOT_LEASE_MS, member: id });
    keys.add(key);
  }
  for (const key of keys) p.pexpire(key, SLOT_LEASE_MS);
  await p.exec().catch(() => undefined);
}

/** A fraction in [0, 1) from the stream's id (each stream's own): streams ending together retry apart. */
function spreadOf(id: string): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0;
  return (h % 1000) / 1000;
}

/**
 * Gives a slot back. Streams whose clients went away together end together (at the same failed
 * heartbeat), and each call is bounded by the Redis budget: a release that fails is tried again, spread
 * out, as a slot left taken counts against its key until its lease lapses (ZREM twice is harmless).
 */
async function giveBack(store: Store, key: string, id: string, tries: number): Promise<void> {
  const spread = 0.5 + spreadOf(id);
  for (let i = 0; i < tries; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** i * spread));
    if (
      await store.redis.zrem(key, id).then(
        () => true,
        () => false,
      )
    )
      return;
  }
}

/**
 * Spends one more request of the monthly quota for an open stream; false when that request was over
 * the quota (it is given back, and the stream ends with `quota_exceeded`).
 */
export async function spendPeriod(store: Store, quotaKey: string | null, monthLimit: number | null): Promise<boolean> {
  if (!quotaKey) return true;
  const used = await store.redis.incr(quotaKey);
  if (monthLimit === null || used <= monthLimit) return true;
  await store.redis.decr(quotaKey).catch(() => undefined);
  return false;
}
