// The part of `node:async_hooks` Workers provide under nodejs_compat (the Workers tsconfig has no
// @types/node): AsyncLocalStorage, for per-request attribution in round-trips.ts.
declare module 'node:async_hooks' {
  export class AsyncLocalStorage<T> {
    getStore(): T | undefined;
    run<R>(store: T, callback: () => R): R;
  }
}
