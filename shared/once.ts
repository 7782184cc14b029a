// A loader run once: what lazily loaded modules and apps are built with (shared/http/lazy-area.ts,
// shared/http/chain.ts, shared/http/app.ts). Imports nothing, so any module may use it without a cycle.

/** Memoizes a loader; a failed load is retried by the next call. */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((err) => {
      loading = undefined;
      throw err;
    }));
}
