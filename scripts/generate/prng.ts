// Seeded randomness for the generator (mulberry32): the same seed and --now give the same bytes.
// Never use Math.random here.

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  uniform(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Integer in [min, max] inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Standard normal (Box-Muller). */
  normal(mean = 0, sd = 1): number {
    const u = 1 - this.next();
    const v = this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  logNormal(median: number, sigma: number): number {
    return median * Math.exp(this.normal(0, sigma));
  }

  /** Power law with minimum xm and tail index alpha (smaller alpha = heavier tail). */
  pareto(xm: number, alpha: number): number {
    return xm / (1 - this.next()) ** (1 / alpha);
  }

  /** k distinct items (k <= items.length), in random order. */
  sample<T>(items: readonly T[], k: number): T[] {
    const copy = [...items];
    const n = Math.min(k, copy.length);
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(this.next() * (copy.length - i));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, n);
  }

  /** RFC 4122 version-4 UUID from the stream. */
  uuid(): string {
    const hex = (n: number) => (Math.floor(n * 4294967296) >>> 0).toString(16).padStart(8, '0');
    const h = hex(this.next()) + hex(this.next()) + hex(this.next()) + hex(this.next());
    const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }

  /** Lower-case base-36 token, e.g. for knowledge-graph ids and URL slugs. */
  token(length: number): string {
    let s = '';
    while (s.length < length) s += Math.floor(this.next() * 36).toString(36);
    return s;
  }
}

/** Picks indices by weight in O(log n) after O(n) setup. */
export class WeightedPicker<T> {
  private readonly cumulative: number[] = [];
  readonly total: number;

  constructor(
    readonly items: readonly T[],
    weight: (item: T, index: number) => number,
  ) {
    let sum = 0;
    items.forEach((item, i) => {
      sum += Math.max(0, weight(item, i));
      this.cumulative.push(sum);
    });
    this.total = sum;
  }

  pickIndex(rng: Rng): number {
    const x = rng.next() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  pick(rng: Rng): T {
    return this.items[this.pickIndex(rng)]!;
  }
}

/** The seed of the article-id stream: apart from the main stream, whose use depends on `--now`. */
export function articleIdSeed(seed: number): number {
  return (seed ^ 0x5a17) >>> 0;
}
