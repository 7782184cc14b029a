// Who may talk to the embedded PGlite (one backend for every connection), and the watchdog that keeps a
// connection from holding it for good. A connection owns PGlite from its first message until its
// output is back at ReadyForQuery/Idle, so a client that opens a transaction and then goes quiet
// (a killed or wedged process whose socket stays open, a pool that keeps an unfinished transaction)
// would block every other connection forever: the watchdog rolls such a holder back and closes it
// once it has been quiet for longer than the ingest statement timeout (PostgreSQL's
// idle_in_transaction_session_timeout, which PGlite has no timer to enforce).

/** A connection as the lock and its watchdog see it. */
export interface LockHolder {
  /** For log lines: number, client, peer, transaction state and last statement. */
  describe(): string;
  /** Milliseconds since its last statement ended, or 0 while one runs (PGlite cannot be interrupted). */
  quietFor(now: number): number;
  /** Ends the connection: its transaction is rolled back and the lock passed on. */
  evict(reason: string): void;
}

/** FIFO lock with an owner, re-entrant for the owner. */
export class OwnerLock {
  private owner: LockHolder | null = null;
  private ownedSince = 0;
  private waiters: Array<{ who: LockHolder; go: () => void }> = [];

  async acquire(who: LockHolder): Promise<void> {
    if (this.owner === who) return;
    if (this.owner === null && this.waiters.length === 0) {
      this.take(who);
      return;
    }
    await new Promise<void>((go) => this.waiters.push({ who, go }));
  }

  release(who: LockHolder): void {
    if (this.owner !== who) return;
    const next = this.waiters.shift();
    this.owner = null;
    if (next) {
      this.take(next.who);
      next.go();
    }
  }

  owns(who: LockHolder): boolean {
    return this.owner === who;
  }

  /** A connection that closes while waiting must not get the lock later. */
  drop(who: LockHolder): void {
    this.waiters = this.waiters.filter((w) => w.who !== who);
  }

  /** The owner and for how long it has held the lock, with how many wait; null when free. */
  state(now = Date.now()): { holder: LockHolder; heldMs: number; waiting: number } | null {
    return this.owner ? { holder: this.owner, heldMs: now - this.ownedSince, waiting: this.waiters.length } : null;
  }

  private take(who: LockHolder): void {
    this.owner = who;
    this.ownedSince = Date.now();
  }
}

export interface WatchdogOptions {
  /** A holder quiet for longer than this is evicted (the ingest statement timeout). */
  quietLimitMs: number;
  log: (line: string) => void;
  /** How often it looks; default a tenth of the limit, between 50 ms and 1 s. */
  everyMs?: number;
}

/** Looks at the lock's owner every `everyMs`; returns the function that stops it. */
export function watchLock(lock: OwnerLock, opts: WatchdogOptions): () => void {
  const every = opts.everyMs ?? Math.min(1_000, Math.max(50, opts.quietLimitMs / 10));
  let warned: LockHolder | null = null;
  const timer = setInterval(() => {
    const now = Date.now();
    const s = lock.state(now);
    if (!s) return;
    const quiet = s.holder.quietFor(now);
    if (quiet > opts.quietLimitMs) {
      const why = `held the embedded database for ${fmtMs(s.heldMs)}, the last ${fmtMs(quiet)} without a statement (limit ${fmtMs(opts.quietLimitMs)}), ${s.waiting} waiting`;
      opts.log(`pglite watchdog: ${s.holder.describe()} ${why}: rolled back and closed`);
      s.holder.evict(why);
      warned = null;
    } else if (s.waiting > 0 && quiet > Math.min(10_000, opts.quietLimitMs / 2) && warned !== s.holder) {
      // Once per holder: others are waiting behind a connection that sends nothing.
      warned = s.holder;
      opts.log(
        `pglite watchdog: ${s.holder.describe()} has held the embedded database for ${fmtMs(s.heldMs)} without a statement for ${fmtMs(quiet)}; ${s.waiting} waiting`,
      );
    }
  }, every);
  timer.unref();
  return () => clearInterval(timer);
}

const fmtMs = (ms: number) => (ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`);
