// Output conventions shared by every area.

/** ISO 8601 with an explicit `+00:00` offset, as the spec's timestamps. */
export function iso(date: Date): string;
export function iso(date: Date | null | undefined): string | null;
export function iso(date: Date | null | undefined): string | null {
  return date ? date.toISOString().replace(/\.\d{3}Z$|Z$/, '+00:00') : null;
}

/** Rounds a ratio for display without losing meaningful precision. */
export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
