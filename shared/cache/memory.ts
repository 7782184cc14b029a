// Short-lived answers kept in an isolate's memory (module scope lives as long as the isolate):
// bounded by entries and by bytes, each entry with its own expiry (wall time), oldest out first.
// Callers key entries by everything that determines the answer, namespace included.
import { Flights } from './flights';

interface Slot<T> {
  value: T;
  bytes: number;
  expires: number;
}

export interface MemoryLimits {
  /** Most entries kept. */
  entries: number;
  /** Most bytes kept (the callers' own size estimate: the answer's text length). */
  bytes: number;
}

const everyCache = new Set<IsolateCache<unknown>>();

export class IsolateCache<T> {
  readonly #slots = new Map<string, Slot<T>>();
  #bytes = 0;
  /** Loads in flight (heldOrLoaded): identical requests arriving meanwhile join the first one's. */
  readonly loads = new Flights<T | undefined>();

  constructor(private readonly limits: MemoryLimits) {
    everyCache.add(this as IsolateCache<unknown>);
  }

  get(key: string, now = Date.now()): T | undefined {
    const slot = this.#slots.get(key);
    if (!slot) return undefined;
    if (slot.expires <= now) {
      this.#drop(key, slot);
      return undefined;
    }
    return slot.value;
  }

  /** Keeps `value` for `ttlMs` (nothing when `ttlMs` <= 0 or the value alone exceeds the byte bound). */
  set(key: string, value: T, bytes: number, ttlMs: number, now = Date.now()): void {
    const old = this.#slots.get(key);
    if (old) this.#drop(key, old);
    if (ttlMs <= 0 || bytes > this.limits.bytes) return;
    this.#slots.set(key, { value, bytes, expires: now + ttlMs });
    this.#bytes += bytes;
    // A Map iterates in insertion order: the first entries are the oldest.
    for (const [k, slot] of this.#slots) {
      if (this.#slots.size <= this.limits.entries && this.#bytes <= this.limits.bytes) break;
      this.#drop(k, slot);
    }
  }

  get size(): number {
    return this.#slots.size;
  }

  clear(): void {
    this.#slots.clear();
    this.#bytes = 0;
  }

  #drop(key: string, slot: Slot<T>): void {
    this.#slots.delete(key);
    this.#bytes -= slot.bytes;
  }
}

/**
 * The value `cache` holds under `key`, else what `load` finds, then kept for `seconds` (0: nothing is
 * held or kept). Undefined (not found) is never kept, so what appears later answers at once.
 * Concurrent identical loads in the isolate share the first one's.
 */
export async function heldOrLoaded<T>(
  cache: IsolateCache<T>,
  key: string,
  seconds: number,
  bytes: number,
  load: () => Promise<T | undefined>,
): Promise<T | undefined> {
  if (seconds <= 0) return load();
  const held = cache.get(key);
  if (held !== undefined) return held;
  return cache.loads.once(key, async () => {
    const value = await load();
    if (value !== undefined) cache.set(key, value, bytes, seconds * 1_000);
    return value;
  });
}

/** Tests and benchmarks: forget every isolate cache (as a fresh isolate would). */
export function forgetIsolateCaches(): void {
  for (const cache of everyCache) cache.clear();
}
