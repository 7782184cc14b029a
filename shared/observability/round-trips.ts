// Counts a request's sequential round trips to Neon and Upstash (the log line's `round_trips`), and
// holds the request open for the shared work it started (`keepAlive`, `settled`).
// Both clients call the global `fetch`; it is wrapped once per isolate and attributes each call to
// the request whose async context issued it (AsyncLocalStorage, nodejs_compat), so concurrent
// requests in one isolate never mix their counts.
import { AsyncLocalStorage } from 'node:async_hooks';

/** One call: when it was sent and when its answer came (the isolate's clock, which moves with I/O). */
interface Call {
  start: number;
  end?: number;
}

/** A request's calls, in the order they were sent, and its work other requests may join (`keepAlive`). */
export interface Trips {
  calls: Call[];
  kept?: Promise<unknown>[];
}

// The one module state of served code outside shared/cache/namespaces.ts: the registry's holders stand
// on this module (Flights keep their work alive through `keepAlive`), so it cannot import the registry.
// Both are the request's context, not values kept for later requests.
const storage = new AsyncLocalStorage<Trips>();
let wrapped = false;

function wrapFetch(): void {
  if (wrapped) return;
  wrapped = true;
  const original = globalThis.fetch;
  globalThis.fetch = function countedFetch(input: RequestInfo | URL, init?: RequestInit) {
    const trips = storage.getStore();
    if (!trips) return original(input, init);
    const call: Call = { start: performance.now() };
    trips.calls.push(call);
    const done = () => void (call.end = performance.now());
    const pending = original(input, init);
    pending.then(done, done);
    return pending;
  } as typeof fetch;
}

/** Runs `work` with a fresh counter for its outgoing calls. */
export function countTrips<T>(work: () => Promise<T>): { trips: Trips; done: Promise<T> } {
  wrapFetch();
  const trips: Trips = { calls: [] };
  return { trips, done: storage.run(trips, work) };
}

/**
 * Up to now (read it when the answer is ready): the calls sent, and the sequential round trips of
 * those answered, the longest chain of calls each sent once the one before it had its answer, as
 * the local gateway counts them (scripts/gateway/trips.ts). Calls of one wave (a pipeline, a
 * Promise.all) count once; work after the answer (cache writes, lock releases) is not counted.
 */
export function tripsSoFar(trips: Trips): { sequential: number; calls: number } {
  const answered = trips.calls.filter((c): c is Required<Call> => c.end !== undefined).sort((a, b) => a.end - b.end);
  const depth: number[] = [];
  for (let i = 0; i < answered.length; i++) {
    let before = 0;
    for (let j = 0; j < i; j++) if (answered[j]!.end <= answered[i]!.start && depth[j]! > before) before = depth[j]!;
    depth[i] = before + 1;
  }
  return { sequential: Math.max(0, ...depth), calls: trips.calls.length };
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
  if (trips.kept) trips.kept.push(work);
  else trips.kept = [work];
}

/** Settles once every piece of work the request kept alive has (passed to ctx.waitUntil after the answer). */
export async function settled(trips: Trips): Promise<void> {
  const list = trips.kept ?? [];
  // Work kept while waiting joins the list: the index reads its new length.
  for (let i = 0; i < list.length; i++) await list[i]!.catch(() => undefined);
}
