// The public check's follower counts (functions/public/profile.ts formatFollowers) are what
// Intl.NumberFormat's compact English notation writes, over every count to two million, around
// every unit's edges and over random counts to a thousand trillion.
import { describe, expect, it } from 'vitest';
import { formatFollowers } from '../../functions/public/profile';

const intl = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

function mismatches(counts: Iterable<number>): string[] {
  const out: string[] = [];
  for (const n of counts) {
    const mine = formatFollowers(n);
    const theirs = intl.format(n);
    if (mine !== theirs && out.length < 10) out.push(`${n}: ${mine} (Intl: ${theirs})`);
  }
  return out;
}

function* range(from: number, to: number, step = 1) {
  for (let n = from; n < to; n += step) yield n;
}

describe('formatFollowers', () => {
  it('is empty when unknown', () => {
    expect(formatFollowers(null)).toBe('');
  });

  it('writes every count below two million as Intl does', () => {
    expect(mismatches(range(0, 2_000_000))).toEqual([]);
  });

  it('writes the counts around each unit and rounding edge as Intl does', () => {
    const edges = [1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
    expect(mismatches(edges.flatMap((edge) => [...range(edge - 3_000, edge + 3_000)].map((d) => d)))).toEqual([]);
    const ties = edges.flatMap((edge) => [...range(0, 2_000)].map((k) => edge + k * (edge / 2_000) - edge / 20_000));
    expect(mismatches(ties.map(Math.round))).toEqual([]);
  });

  it('writes random counts to a thousand trillion as Intl does', () => {
    // A fixed linear congruential sequence: the same counts on every run.
    let seed = 47;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    expect(mismatches(Array.from({ length: 200_000 }, () => Math.floor(random() * 10 ** (1 + random() * 14))))).toEqual([]);
  });
});
