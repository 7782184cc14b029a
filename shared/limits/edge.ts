// Limits decided at the edge (the anchor: Unkey's `async` rate limiting). An isolate answers a key's
// request from the state its last Redis call returned, counts the hit locally, and sends it to Redis
// right after the response (ctx.waitUntil, coalesced with the hits of concurrent requests): a warm
// request pays no round trip for its limits, and no hit is held back longer than one Redis call.
//
// Bounds (docs/PERFORMANCE.md "Limits at the edge", README "Rate limits"): an isolate admits on its own
// at most a grant of requests that Redis has not confirmed yet; the grant is the isolate's share
// (Redis counts the isolates spending the key) of the lesser of what Redis said remains and the
// slack: 10% of the per-minute limit, max(1%, 5 requests) of the monthly quota. So the isolates of a
// key together overshoot by at most the slack, and with small limits (a per-minute limit below 10)
// every request is checked in Redis, as in `strict` mode. Every hit is counted in the quota counter
// (INCRBY is unconditional), so Upstash's counters end exact. A stale state (older than FRESH_MS, or
// an auth version read more than AUTH_VERSION_FRESH_MS ago),
// a denial, an exhausted grant, /v1/usage and MCP calls take the synchronous path (one Redis call,
// today's behaviour, which also carries the hits still owed). A request this isolate may decide waits
// for the key's Redis call in flight and decides again from its answer; one that asks Redis in any
// case (strict, /v1/usage, MCP) sends its own call at once, beside the one in flight.
import type { AuthContext } from '../auth/types';
import { authVersionFresh, authVersionKey, observeAuthVersion } from '../auth/version';
import type { Store } from '../redis';
import { countLimits, quotaKeyOf, type Hits, type LimitState, type MinuteState } from './check';

/**
 * How old a key's state may be and still decide a request here (its grant bounds the overshoot at
 * any age; the age bounds how stale the headers get). The auth version must be fresher still
 * (AUTH_VERSION_FRESH_MS, read by any key's call): that is what bounds a revocation to 2 s.
 */
export const FRESH_MS = 10_000;
export const MINUTE_SLACK_SHARE = 0.1;
export const MONTH_SLACK_SHARE = 0.01;
export const MONTH_SLACK_MIN = 5;
/** Isolates that have not counted hits of a key for 10-20 s no longer take a share of its grant. */
const ISOLATE_SEEN_MS = 10_000;
/**
 * How a request waits for another request's Redis call on the same key: on its own timers, polling
 * the entry, never by awaiting that call's promise (workerd cancels a request that awaits a promise
 * another request's I/O settles, as hung, once that request is gone). After BUSY_WAIT_MS it asks Redis itself.
 */
const BUSY_POLL_MS = 5;
const BUSY_WAIT_MS = 1_000;

interface Entry {
  /** The last state Redis answered. */
  state: LimitState;
  /** Wall time of that answer. */
  at: number;
  /** Requests this isolate may admit on its own before Redis confirms them. */
  grant: number;
  /** Admitted here and not yet confirmed by Redis (unsent + in flight). */
  unconfirmed: number;
  /** Admitted here, not yet sent (minute hits; `owedMonth` of them spend quota). */
  owed: number;
  owedMonth: number;
  /** The Redis call in flight for this key (a flush or a synchronous check): at most one. */
  busy: Promise<unknown> | null;
}

export interface DecideOptions {
  charge: boolean;
  later: (work: Promise<unknown>) => void;
  sync?: boolean;
  decided?: MinuteState;
}

/** One decision: the state for the headers, and whether this isolate decided it without Redis. */
export interface EdgeDecision {
  state: LimitState;
  local: boolean;
}

/** The grant of an answer from Redis: this isolate's share of min(remaining, slack) on both windows. */
export function grantOf(state: LimitState, isolates: number): number {
  if (state.minute.mode !== 'redis' || !state.minute.success || (state.month && !state.month.success)) return 0;
  const minute = Math.min(state.minute.remaining, MINUTE_SLACK_SHARE * state.minute.limit);
  const month = state.month
    ? Math.min(state.month.limit - state.month.used, Math.max(MONTH_SLACK_SHARE * state.month.limit, MONTH_SLACK_MIN))
    : Infinity;
  return Math.max(0, Math.floor(Math.min(minute, month) / Math.max(1, isolates)));
}

/** The limits of one isolate (module scope: one per isolate; tests build several to play several isolates). */
export class EdgeLimits {
  readonly #entries = new Map<string, Entry>();
  /** The presence bucket this isolate last joined, per key. */
  readonly #announced = new Map<string, number>();
  /**
   * The request's limits. `later` runs work beside and after the response (ctx.waitUntil): the flush
   * of a hit decided here. Charges one request of the quota when `charge`. `sync` asks Redis in any
   * case (strict mode, /v1/usage); `decided` is an MCP tool call's prepaid minute decision.
   */
  async decide(store: Store, auth: AuthContext, now: Date, options: DecideOptions): Promise<EdgeDecision> {
    const key = this.#keyOf(store, auth);
    const { charge, later } = options;
    let waited = false;
    for (;;) {
      const entry = this.#entries.get(key);
      const nowMs = Date.now();
      const local = !options.sync && !options.decided && charge;
      if (entry && local && this.#current(entry, store, nowMs)) {
        entry.unconfirmed++;
        entry.owed++;
        entry.owedMonth++;
        later(this.#flush(store, auth, key));
        return { state: { ...this.#spent(entry), quotaKey: quotaKeyOf(store, auth, now) }, local: true };
      }
      // Wait for the key's call in flight, then decide again: its answer may grant this one. A request
      // that asks Redis in any case does not queue: under steady traffic the flushes after each answer
      // kept the key busy, and /v1/usage waited out BUSY_WAIT_MS (p50 1.1 s under the load bench).
      if (entry?.busy && !waited && local) {
        await this.#idle(key);
        waited = true;
        continue;
      }
      return { state: await this.#check(store, auth, key, now, charge, options.decided), local: false };
    }
  }

  /** The entry may decide now: fresh, auth version fresh, grant left, neither window turned since Redis answered. */
  #current(entry: Entry, store: Store, nowMs: number): boolean {
    const { minute, month } = entry.state;
    return (
      nowMs - entry.at < FRESH_MS &&
      authVersionFresh(store, nowMs) &&
      entry.unconfirmed < entry.grant &&
      minute.resetMs > nowMs &&
      (!month || month.resetMs > nowMs)
    );
  }

  /**
   * Whether this isolate's last answer from Redis for the key refused it (either window) and that
   * window has not turned yet: such a key's next request is decided before any data is read
   * (shared/limits/middleware.ts runs a request's reads beside its limit check otherwise).
   */
  refusedLately(store: Store, auth: AuthContext, nowMs = Date.now()): boolean {
    const state = this.#entries.get(this.#keyOf(store, auth))?.state;
    if (!state) return false;
    const { minute, month } = state;
    return (!minute.success && minute.resetMs > nowMs) || (!!month && !month.success && month.resetMs > nowMs);
  }

  /** A request admitted here reached no data (an error, a 304): its quota hit is taken back before it is sent, if it has not gone. */
  refund(store: Store, auth: AuthContext): boolean {
    const entry = this.#entries.get(this.#keyOf(store, auth));
    if (!entry || entry.owedMonth === 0) return false;
    entry.owedMonth--;
    return true;
  }

  /** Every state goes stale (an auth version change: plans and keys may differ now); hits owed stay owed. */
  expire(): void {
    for (const entry of this.#entries.values()) {
      entry.at = 0;
      entry.grant = 0;
    }
  }

  /**
   * How many isolates spend this key: each isolate adds itself once per ISOLATE_SEEN_MS bucket to
   * the bucket's counter; the count is the larger of this bucket's and the previous one's. Write
   * commands only (INCRBY 0 reads), so they join the limits' pipeline.
   */
  async #presence(store: Store, auth: AuthContext, key: string): Promise<number> {
    const bucket = Math.floor(Date.now() / ISOLATE_SEEN_MS);
    const counter = (b: number) => store.key('edge', auth.keyId, String(b));
    const join = this.#announced.get(key) !== bucket;
    this.#announced.set(key, bucket);
    if (this.#announced.size > 10_000) this.#announced.delete(this.#announced.keys().next().value!);
    const ttl = 3 * ISOLATE_SEEN_MS;
    const [current, , previous] = await Promise.all([
      store.redis.incrby(counter(bucket), join ? 1 : 0),
      store.redis.pexpire(counter(bucket), ttl),
      store.redis.incrby(counter(bucket - 1), 0),
      store.redis.pexpire(counter(bucket - 1), ttl),
    ]);
    return Math.max(1, current, previous);
  }

  #keyOf(store: Store, auth: AuthContext): string {
    return `${store.prefix}|${auth.keyId}`;
  }

  /** The state as this isolate's local hits leave it, for the RateLimit headers. */
  #spent(entry: Entry): LimitState {
    const { minute, month } = entry.state;
    return {
      minute: { ...minute, remaining: Math.max(0, minute.remaining - entry.unconfirmed) },
      month: month && { ...month, used: month.used + entry.unconfirmed },
      quotaKey: entry.state.quotaKey,
    };
  }

  /** The synchronous path: this request's hit and every hit still owed, in one Redis call. */
  async #check(store: Store, auth: AuthContext, key: string, now: Date, charge: boolean, decided?: MinuteState): Promise<LimitState> {
    const entry = this.#entries.get(key);
    // A prepaid minute decision stands alone: hits owed then wait for the next flush.
    const owed = decided ? { minute: 0, month: 0 } : { minute: entry?.owed ?? 0, month: entry?.owedMonth ?? 0 };
    const hits = { minute: decided ? 0 : owed.minute + 1, month: owed.month + (charge ? 1 : 0) };
    const call = this.#count(store, auth, key, now, hits, owed, decided);
    const state = await this.#busy(key, call);
    // This request's own hit is what the caller refunds (a denial, an error): the owed ones were served.
    return { ...state, quotaKey: charge ? state.quotaKey : null };
  }

  /** Sends the hits owed (after the response). Runs again while hits arrive during a call. */
  async #flush(store: Store, auth: AuthContext, key: string): Promise<void> {
    for (;;) {
      const entry = this.#entries.get(key);
      if (!entry || entry.owed === 0) return;
      if (entry.busy) {
        // Still busy after the wait: the hits stay owed, for the next flush or check to send.
        if (!(await this.#idle(key))) return;
        continue;
      }
      const owed = { minute: entry.owed, month: entry.owedMonth };
      await this.#busy(key, this.#count(store, auth, key, new Date(), owed, owed)).catch(() => undefined);
      return;
    }
  }

  /** Waits until no Redis call is in flight for `key` (see BUSY_POLL_MS); false when it gave up. */
  async #idle(key: string): Promise<boolean> {
    const deadline = Date.now() + BUSY_WAIT_MS;
    while (this.#entries.get(key)?.busy) {
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, BUSY_POLL_MS));
    }
    return true;
  }

  #busy<T>(key: string, call: Promise<T>): Promise<T> {
    const entry = this.#entries.get(key);
    if (entry) {
      entry.busy = call;
      void call.catch(() => undefined).finally(() => entry.busy === call && (entry.busy = null));
    }
    return call;
  }

  /**
   * One Redis call: the hits, this isolate's presence among the key's isolates, and the auth version.
   * `owed`: the hits of `hits` this isolate had admitted on its own; kept owed if Redis cannot count them.
   */
  async #count(
    store: Store,
    auth: AuthContext,
    key: string,
    now: Date,
    hits: Hits,
    owed: Hits,
    decided?: MinuteState,
  ): Promise<LimitState> {
    const entry = this.#entries.get(key);
    if (entry) {
      entry.owed -= owed.minute;
      entry.owedMonth -= owed.month;
    }
    const [state, isolates, version] = await Promise.all([
      countLimits(store, auth, now, hits, decided),
      this.#presence(store, auth, key).catch(() => 1),
      // INCRBY 0 reads without writing: a write command, so it travels in the limits' one pipeline.
      store.redis.incrby(authVersionKey(store), 0).catch(() => undefined),
    ]);
    const current = this.#entries.get(key);
    if (state.minute.mode !== 'redis' || (!state.month && auth.projectId)) {
      // Redis is unreachable: the owed hits stay owed (they travel with the next call that reaches it).
      if (current) {
        current.owed += owed.minute;
        current.owedMonth += owed.month;
      }
      return state;
    }
    if (version !== undefined && observeAuthVersion(store, version)) this.expire();
    const grant = grantOf(state, isolates);
    if (current) {
      // Updated in place: a waiter holds this entry's `busy`, which the call clears when it settles.
      Object.assign(current, { state, at: Date.now(), grant, unconfirmed: Math.max(0, current.unconfirmed - owed.minute) });
    } else {
      this.#entries.set(key, { state, at: Date.now(), grant, unconfirmed: 0, owed: 0, owedMonth: 0, busy: null });
      if (this.#entries.size > 10_000) this.#entries.delete(this.#entries.keys().next().value!);
    }
    return state;
  }
}

/** This isolate's edge limits. */
export const edgeLimits = new EdgeLimits();
