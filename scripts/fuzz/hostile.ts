// Hostile parameter values of the fuzz suite.
import { UUID, type Rng } from './random';

/**
 * Hostile values of a parameter (given its valid, encoded value): each should answer 4xx in the
 * spec's shape, never 500. NUL and control characters go inside a valid value, so they pass a
 * route's pattern checks and reach whatever comes after them.
 */
export const HOSTILE: [string, (rng: Rng, valid: string) => string][] = [
  [
    'nul',
    (_, valid) => {
      const at = valid.startsWith('%') ? 3 : Math.min(1, valid.length); // after the first character, never inside an escape
      return `${valid.slice(0, at)}%00${valid.slice(at)}`;
    },
  ],
  ['control', (_, valid) => `${valid}%1B%5B0m`],
  ['bad-percent', () => '%E0%A4%A'],
  ['not-utf8', () => '%C3%28'],
  ['surrogate', () => '%ED%A0%80'],
  ['over-long', (rng) => 'x'.repeat(rng.pick([300, 2_100, 5_000]))],
  ['huge-number', (rng) => rng.pick(['1e400', '99999999999999999999999', '-1e308', '9007199254740993'])],
  ['negative', () => '-1'],
  ['fraction', () => '1.5'],
  ['empty', () => ''],
  ['whitespace', () => '%20%20'],
  ['wrong-type', () => 'abc'],
  ['bad-date', () => '2026-02-30T25:61:00Z'],
  ['sql', () => encodeURIComponent("' OR 1=1; --")],
  ['traversal', () => '..%2F..%2Fetc%2Fpasswd'],
  ['unicode', () => encodeURIComponent('ü€😀\u202e')],
  ['bad-uuid', () => '7a1f3c9e-2b4d-4e8f-9a0b-1c2d3e4f5a6g'],
  ['random-uuid', (rng) => UUID(rng)],
];
