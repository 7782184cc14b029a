// Counts a request's sequential round trips to Neon and Upstash (the log line's `round_trips`), and
// holds the request open for the shared work it started (`keepAlive`, `settled`).
// Both clients call the global `fetch`; it is wrapped once per isolate and attributes each call to
// the request whose async context issued it (AsyncLocalStorage, nodejs_compat), so concurrent
// requests in one isolate never mix their counts.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface Trips {
  /** Waves of calls: a call started while another of the same request is in flight adds none. */
  sequential: number;
  /** Every call, parallel or not. */
  calls: number;
  inFlight: number;
}

const storage = new AsyncLocalStorage<Trips>();
/** Work of each request that other requests may join (`keepAlive`). */
const kept = new WeakMap<Trips, Promise<unknown>[]>();
let wrapped = false;

function wrapFetch(): void {
  if (wrapped) return;
  wrapped = true;
  const original = globalThis.fetch;
  globalThis.fetch = function countedFetch(input: RequestInfo | URL, init?: RequestInit) {
    const trips = storage.getStore();
    if (!trips) return original(input, init);
    if (trips.inFlight === 0) trips.sequential++;
    trips.calls++;
    trips.inFlight++;
    const done = () => void trips.inFlight--;
    const pending = original(input, init);
    pending.then(done, done);
    return pending;
  } as typeof fetch;
}

/** Runs `work` with a fresh counter for its outgoing calls; the counter is read after it settles. */
export function countTrips<T>(work: () => Promise<T>): { trips: Trips; done: Promise<T> } {
  wrapFetch();
  const trips: Trips = { sequential: 0, calls: 0, inFlight: 0 };
  return { trips, done: storage.run(trips, work) };
}

/**
 * Holds the current request open until `work` settles, even when its answer does not wait for it.
 * For work other requests of the isolate join (shared/cache/flights.ts): the platform cancels what
 * a finished request left in flight, and that work would then never settle, so whoever joined it
 * waited out JOIN_WAIT_MS (the 3-second public check after a 422, issue 47).
 */
export function keepAlive(work: Promise<unknown>): void {
  const trips = storage.getStore();
  if (!trips) return;
  const list = kept.get(trips);
  if (list) list.push(work);
  else kept.set(trips, [work]);
}

/** Settles once every piece of work the request kept alive has (passed to ctx.waitUntil after the answer). */
export async function settled(trips: Trips): Promise<void> {
  const list = kept.get(trips) ?? [];
  // Work kept while waiting joins the list: the index reads its new length.
  for (let i = 0; i < list.length; i++) await list[i]!.catch(() => undefined);
}
