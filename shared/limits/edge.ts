// Limits decided at the edge (the anchor: Unkey's `async` rate limiting). An isolate answers a key's
// request from the state its last Redis call returned, counts the hit locally, and sends it to Redis
// right after the response (ctx.waitUntil, coalesced with the hits of concurrent requests): a warm
// request pays no round trip for its limits, and no hit is held back longer than one Redis call.
//
// Bounds (docs/PERFORMANCE.md "Limits at the edge", README "Rate limits"): an isolate admits on its own
// at most a grant of requests that Redis has not confirmed yet. The grant stands on a lease of the
// slack held in Redis (shared/limits/lease.ts): 10% of the key's per-minute limit, max(1%, 5
// requests) of the project's monthly quota, leased among every key and isolate spending it so that
// the leases together never exceed it, also when isolates and keys join at once. So all isolates and
// keys together overshoot by at most the slack, and with small limits (a per-minute limit below 10)
// every request is checked in Redis, as in `strict` mode. Every admitted hit is counted: quota hits
// travel in batches, each under a token Redis counts once, so a call that timed out after Redis ran it
// is sent again without counting twice; the hits the isolate fallback admits while Redis is
// unreachable are owed and sent once it answers; hits owed by an entry evicted from the isolate's
// table travel with the isolate's next call. A stale state (older than FRESH_MS, a lapsed lease, or
// an auth version read more than AUTH_VERSION_FRESH_MS ago), a denial, an exhausted grant, /v1/usage
// and MCP calls take the synchronous path (one Redis call, which also carries the hits still owed).
// A request this isolate may decide waits for the key's Redis call in flight and decides again from
// its answer; one that asks Redis in any case (strict, /v1/usage, MCP) sends its own call at once.
import { isOutdated } from '../auth/keys';
import type { AuthContext } from '../auth/types';
import { namespaces, redisNamespaces } from '../cache/namespaces';
import { authVersionFresh, authVersionKey, observeAuthVersion } from '../auth/version';
import type { Store } from '../db/redis';
import { countLimits, quotaKeyOf, type Hits, type LimitState, type MinuteState } from './check';
import { batchToken, LEASE_MS, type Batch } from './lease';
import { monthlyQuota } from './quota';
import { ENTRIES_MAX, grantOf, MINUTE_SLACK_SHARE, MONTH_SLACK_MIN, MONTH_SLACK_SHARE, newEntry, wantOf, type Entry } from './grant';

export { ENTRIES_MAX, grantOf, MINUTE_SLACK_SHARE, MONTH_SLACK_MIN, MONTH_SLACK_SHARE, slackOf } from './grant';

/**
 * How old a key's state may be and still decide a request here (its grant bounds the overshoot at
 * any age; the age bounds how stale the headers get). The auth version must be fresher still
 * (AUTH_VERSION_FRESH_MS, read by any key's call): that is what bounds a revocation to 2 s.
 */
export const FRESH_MS = 10_000;
/**
 * How a request waits for another request's Redis call on the same key: on its own timers, polling
 * the entry, never by awaiting that call's promise (workerd cancels a request that awaits a promise
 * another request's I/O settles, as hung, once that request is gone). After BUSY_WAIT_MS it asks Redis itself.
 */
const BUSY_POLL_MS = 5;
const BUSY_WAIT_MS = 1_000;

export interface DecideOptions {
  charge: boolean;
  later: (work: Promise<unknown>) => void;
  sync?: boolean;
  decided?: MinuteState;
  /** Requests this one counts for (a bulk public check: one per domain); 1 by default. */
  cost?: number;
}

/** One decision: the state for the headers, and whether this isolate decided it without Redis. */
export interface EdgeDecision {
  state: LimitState;
  local: boolean;
}

/** The limits of one isolate (module scope: one per isolate; tests build several to play several isolates). */
export class EdgeLimits {
  readonly #entries = new Map<string, Entry>();
  /** This isolate's name in the lease hashes, made on first use (no random values at a Worker's startup). */
  #id: string | undefined;
  /** Quota batches of evicted entries: they travel with this isolate's next call. */
  #orphans: Batch[] = [];
  readonly #entriesMax: number;
  readonly #versioned: boolean;

  /**
   * `entries`: the table's size (tests play eviction with a small one). `authVersion: false` for
   * subjects no key stands behind (the public routes' client addresses): no auth version to read.
   */
  constructor(options: { entries?: number; authVersion?: boolean } = {}) {
    this.#entriesMax = options.entries ?? ENTRIES_MAX;
    this.#versioned = options.authVersion ?? true;
  }

  /**
   * The request's limits. `later` runs work beside and after the response (ctx.waitUntil): the flush
   * of a hit decided here. Charges one request of the quota when `charge`. `sync` asks Redis in any
   * case (strict mode, /v1/usage); `decided` is an MCP tool call's prepaid minute decision.
   */
  async decide(store: Store, auth: AuthContext, now: Date, options: DecideOptions): Promise<EdgeDecision> {
    const key = this.#keyOf(store, auth);
    const { charge, later } = options;
    const cost = options.cost ?? 1;
    let waited = false;
    for (;;) {
      const entry = this.#entries.get(key);
      const nowMs = Date.now();
      const local = !options.sync && !options.decided && charge;
      if (entry && local) entry.demand = Math.max(entry.demand, entry.unconfirmed + cost);
      if (entry?.state && local && this.#current(entry, store, nowMs, cost)) {
        entry.unconfirmed += cost;
        entry.owed += cost;
        entry.owedMonth++;
        later(this.#flush(store, auth, key));
        return { state: { ...this.#spent(entry, entry.state), quotaKey: quotaKeyOf(store, auth, now) }, local: true };
      }
      // Wait for the key's call in flight, then decide again: its answer may grant this one. A request
      // that asks Redis in any case does not queue: under steady traffic the flushes after each answer
      // kept the key busy, and /v1/usage waited out BUSY_WAIT_MS (docs/BENCHMARKS.md "`/v1/usage` under load").
      if (entry?.busy && !waited && local) {
        await this.#idle(key);
        waited = true;
        continue;
      }
      return this.#check(store, auth, key, now, charge, cost, options.decided);
    }
  }

  /** The entry may decide now: fresh, lease held, auth version fresh, grant left, neither window turned since Redis answered. */
  #current(entry: Entry, store: Store, nowMs: number, cost: number): boolean {
    const { minute, month } = entry.state!;
    return (
      nowMs - entry.at < FRESH_MS &&
      nowMs < entry.leaseUntil &&
      (!this.#versioned || authVersionFresh(store, nowMs)) &&
      entry.unconfirmed + cost <= entry.grant &&
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

  /**
   * A request decided here (at the edge, or by the fallback while Redis was unreachable) reached no
   * data (an error, a 304) or was refused: its quota hit is taken back in the isolate, before it is
   * sent or, once sent in a batch that may yet be counted, in the next one.
   */
  refund(store: Store, auth: AuthContext): boolean {
    const entry = this.#entries.get(this.#keyOf(store, auth));
    if (!entry || (entry.owedMonth <= 0 && entry.retry.length === 0)) return false;
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

  /** Tests: the hits this isolate still owes Redis for a key (minute, month, batches to send again). */
  owedOf(store: Store, auth: AuthContext): { minute: number; month: number; batches: number } {
    const entry = this.#entries.get(this.#keyOf(store, auth));
    const month = (entry?.owedMonth ?? 0) + (entry?.retry.reduce((sum, b) => sum + b.month, 0) ?? 0);
    return { minute: entry?.owed ?? 0, month, batches: entry?.retry.length ?? 0 };
  }

  #keyOf(store: Store, auth: AuthContext): string {
    return `${store.prefix}|${auth.keyId}`;
  }

  /** The state as this isolate's local hits leave it, for the RateLimit headers. */
  #spent(entry: Entry, state: LimitState): LimitState {
    const { minute, month } = state;
    return {
      minute: { ...minute, remaining: Math.max(0, minute.remaining - entry.unconfirmed) },
      month: month && { ...month, used: month.used + entry.unconfirmed },
      quotaKey: state.quotaKey,
    };
  }

  /** The synchronous path: this request's hit and every hit still owed, in one Redis call. */
  async #check(store: Store, auth: AuthContext, key: string, now: Date, charge: boolean, cost: number, decided?: MinuteState) {
    const entry = this.#entry(store, auth, key, now);
    // A prepaid minute decision stands alone: hits owed then wait for the next flush.
    const owed = decided ? { minute: 0, month: 0 } : { minute: entry.owed, month: entry.owedMonth };
    const hits = { minute: decided ? 0 : owed.minute + cost, month: owed.month + (charge ? 1 : 0) };
    const call = this.#count(store, auth, key, now, hits, owed, decided);
    const { state, fallback } = await this.#busy(key, call);
    // This request's own hit is what the caller refunds (a denial, an error): the owed ones were served.
    // Decided by the fallback, it is taken back in the isolate (`local`): its batch goes again later.
    return { state: { ...state, quotaKey: charge ? state.quotaKey : null }, local: fallback };
  }

  /** Sends the hits owed (after the response). Runs again while hits arrive during a call. */
  async #flush(store: Store, auth: AuthContext, key: string): Promise<void> {
    for (;;) {
      const entry = this.#entries.get(key);
      if (!entry || (entry.owed === 0 && entry.owedMonth === 0 && entry.retry.length === 0)) return;
      if (entry.busy) {
        // Still busy after the wait: the hits stay owed, for the next flush or check to send.
        if (!(await this.#idle(key))) return;
        continue;
      }
      const owed = { minute: entry.owed, month: entry.owedMonth };
      // Only quota hits to send (refunds, batches to send again): the last minute state stands.
      const decided = owed.minute === 0 ? entry.state?.minute : undefined;
      if (owed.minute === 0 && !decided) return;
      await this.#busy(key, this.#count(store, auth, key, new Date(), owed, owed, decided)).catch(() => undefined);
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

  /** The key's entry, made (and the table kept within ENTRIES_MAX) when it has none. */
  #entry(store: Store, auth: AuthContext, key: string, now: Date): Entry {
    const found = this.#entries.get(key);
    if (found) return found;
    const entry = newEntry(quotaKeyOf(store, auth, now));
    this.#entries.set(key, entry);
    if (this.#entries.size > this.#entriesMax) this.#evict();
    return entry;
  }

  /** Drops the oldest entry; what it owes the quota travels with the isolate's next call. */
  #evict(): void {
    const [key, entry] = this.#entries.entries().next().value!;
    this.#entries.delete(key);
    if (!entry.quotaKey) return;
    this.#orphans.push(...entry.retry);
    if (entry.owedMonth !== 0) this.#orphans.push({ quotaKey: entry.quotaKey, token: '', month: entry.owedMonth });
  }

  /**
   * One Redis call: the hits, this isolate's lease, the quota batches owed, and the auth version.
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
  ): Promise<{ state: LimitState; fallback: boolean }> {
    const entry = this.#entry(store, auth, key, now);
    entry.owed -= owed.minute;
    entry.owedMonth -= owed.month;
    const quotaKey = quotaKeyOf(store, auth, now);
    const own = quotaKey ? [{ quotaKey, token: batchToken(store), month: hits.month }] : [];
    const older = [...entry.retry, ...this.#orphans.splice(0)].map((b) => (b.token ? b : { ...b, token: batchToken(store) }));
    entry.retry = [];
    const sentAt = Date.now();
    entry.demand = Math.floor(entry.demand / 2);
    // While the call is out, this isolate admits at most half of what its grant has left, and its
    // lease is renewed at least for that: the leases of busy isolates shrink to their shares within
    // a few calls, and what they admit meanwhile stays covered.
    const during = sentAt < entry.leaseUntil ? Math.ceil(Math.max(0, entry.grant - entry.unconfirmed) / 2) : 0;
    entry.grant = Math.min(entry.grant, entry.unconfirmed + during);
    const quota = auth.plan ? monthlyQuota(auth.plan, auth.addons).total : 0;
    const limits = { minute: MINUTE_SLACK_SHARE * auth.rateLimitPerMinute, month: Math.max(MONTH_SLACK_SHARE * quota, MONTH_SLACK_MIN) };
    const [{ state, lease }, version] = await Promise.all([
      countLimits(
        store,
        auth,
        now,
        hits,
        {
          holder: `${(this.#id ??= crypto.randomUUID())}:${auth.keyId}`,
          minuteKey: store.key(redisNamespaces.edgeLease.name, auth.keyId),
          monthKey: quotaKey && store.key(redisNamespaces.edgeLease.name, quotaKey.slice(store.prefix.length)),
          minuteSlack: limits.minute,
          monthSlack: limits.month,
          // Hits admitted under the lease that this call does not count stay covered by it.
          floor: entry.unconfirmed - owed.minute + during,
          want: auth.limitsMode === 'strict' ? 0 : wantOf(entry),
          batches: [...own, ...older],
        },
        decided,
      ),
      // INCRBY 0 reads without writing: a write command, so it travels in the limits' one pipeline.
      this.#versioned ? store.redis.incrby(authVersionKey(store), 0).catch(() => undefined) : undefined,
    ]);
    const current = this.#entries.get(key) ?? entry;
    if (lease === null) {
      // Redis is unreachable: the owed hits stay owed, and the batches (which it may have counted) go
      // again under their tokens. A request the fallback admitted is owed too (its minute hit here;
      // its quota hit is in its batch, taken back by refund() should it be refused or reach no data).
      const admitted = state.minute.success ? hits.minute - owed.minute : 0;
      current.owed += owed.minute + admitted;
      current.unconfirmed += admitted;
      current.retry.push(...own.filter((b) => b.month !== 0), ...older.filter((b) => b.month !== 0));
      return { state, fallback: true };
    }
    if (version !== undefined && observeAuthVersion(store, version)) this.expire();
    // Decided under a key read before a change: no grant until a call under the key as it is now.
    const stale = isOutdated(auth);
    Object.assign(current, {
      state,
      at: stale ? 0 : Date.now(),
      grant: stale ? 0 : grantOf(state, lease),
      lease,
      leaseUntil: sentAt + LEASE_MS,
      unconfirmed: Math.max(0, current.unconfirmed - owed.minute),
    });
    return { state, fallback: false };
  }
}

declare module '../cache/namespaces' {
  interface NamespaceValues {
    edgeLimits: EdgeLimits;
  }
}

/** This isolate's edge limits. */
export const edgeLimits = (namespaces.edgeLimits.keys.value ??= new EdgeLimits());
