// Concurrent identical work inside one isolate (docs/PERFORMANCE.md "The request path"): the first
// request does it, the identical requests arriving meanwhile join its result instead of doing it again
// (no lookup, no poll of Redis, no second query). Results are plain data, and workerd delivers a
// promise settled by one request to another request awaiting it (compatibility flag
// handle_cross_request_promise_resolution, on by default). The first request stays open until its
// flight settles, even when its answer did not wait for it (shared/observability/round-trips.ts
// `keepAlive`): the platform cancels what a finished request left in flight. A joiner still waits a
// bounded time: the first request may be cancelled (its caller gone) and never settle.
import { keepAlive } from '../observability/round-trips';

/** How long a joiner waits for the first request by default before doing the work itself. */
export const JOIN_WAIT_MS = 3_000;

export class Flights<T> {
  readonly #pending = new Map<string, Promise<T>>();

  /**
   * Whether identical work is in flight. Check it and call `run` with no `await` in between, or
   * requests arriving together each start their own.
   */
  has(key: string): boolean {
    return this.#pending.has(key);
  }

  /** Runs `work` as the flight of `key`: identical requests arriving until it settles join it. */
  async run(key: string, work: () => Promise<T>): Promise<T> {
    const flight = work();
    flight.catch(() => undefined); // a failure is its own request's answer; joiners decide for themselves
    keepAlive(flight);
    this.#pending.set(key, flight);
    try {
      return await flight;
    } finally {
      if (this.#pending.get(key) === flight) this.#pending.delete(key);
    }
  }

  /**
   * The result of the flight of `key`: `none` when there is none, `late` when it is not back within
   * `waitMs` (then it is forgotten: it may never come back). Rejects as the flight rejects.
   */
  async join(key: string, waitMs: number): Promise<{ value: T } | 'none' | 'late'> {
    const flight = this.#pending.get(key);
    if (!flight) return 'none';
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), waitMs);
    });
    try {
      const outcome = await Promise.race([flight.then((value) => ({ value })), late]);
      if (outcome === 'late' && this.#pending.get(key) === flight) this.#pending.delete(key);
      return outcome;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  /** The flight's value if it brings one within `waitMs`; undefined when there is none, it failed or is late. */
  async valueOf(key: string, waitMs = JOIN_WAIT_MS): Promise<T | undefined> {
    const outcome = await this.join(key, waitMs).catch(() => 'none' as const);
    return typeof outcome === 'object' ? outcome.value : undefined;
  }

  /**
   * The value of the identical work in flight, if it brings one within JOIN_WAIT_MS (`joined`); else
   * `work`, run as the flight of `key`. The check and the start are one synchronous step.
   */
  async shared(key: string, work: () => Promise<T>): Promise<{ value: T; joined: boolean }> {
    if (this.#pending.has(key)) {
      const value = await this.valueOf(key);
      if (value !== undefined) return { value, joined: true };
    }
    return { value: await this.run(key, work), joined: false };
  }

  /** `shared`'s value, wherever it came from. */
  async once(key: string, work: () => Promise<T>): Promise<T> {
    return (await this.shared(key, work)).value;
  }
}
