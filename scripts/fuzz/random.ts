// The fuzz suite's only source of randomness: seeded, so a seed always means the same requests.

/** mulberry32: a small seeded PRNG (the fuzz must be reproducible from its seed). */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    chance: (p: number) => next() < p,
  };
}
export type Rng = ReturnType<typeof prng>;

export const UUID = (rng: Rng) => '00000000-0000-4000-8000-000000000000'.replace(/0/g, () => '0123456789abcdef'[rng.int(0, 15)]);
