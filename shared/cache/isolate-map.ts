// The registry's generic holders of isolate state (namespaces.ts) besides IsolateCache: a Map that may
// bound its entries, and a slot for one value built on first use.

/**
 * A Map kept for the isolate's lifetime, at most `most` entries: past it, the oldest inserted goes.
 * A Map still, so a library that wants one (@upstash/ratelimit's `ephemeralCache`) takes it as it is.
 */
export class IsolateMap<K, V> extends Map<K, V> {
  constructor(readonly most = Number.POSITIVE_INFINITY) {
    super();
  }

  override set(key: K, value: V): this {
    super.set(key, value);
    // A Map iterates in insertion order: the first key is the oldest.
    if (this.size > this.most) this.delete(this.keys().next().value as K);
    return this;
  }
}

/** One value of the isolate, built by its owner on first use (`slot.value ??= build()`). */
export class IsolateSlot<T> {
  value: T | undefined;
}
