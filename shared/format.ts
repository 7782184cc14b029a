// Output conventions shared by every area.

type Instant = Date | string;

/** ISO 8601 with an explicit `+00:00` offset, as the spec's timestamps. Raw SQL rows may carry strings. */
export function iso(value: Instant): string;
export function iso(value: Instant | null | undefined): string | null;
export function iso(value: Instant | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return new Date(value).toISOString().replace(/\.\d{3}Z$|Z$/, '+00:00');
}

/**
 * The companion web application's page of an article (`url_id`), a trend or a publisher (its
 * domain): the spec's additive `cabinet_url` and the public profile's `profileUrl`,
 * `{app_url}/<kind>/<id>`.
 */
export const cabinetUrl = (appUrl: string, kind: 'article' | 'trend' | 'publisher', id: string) =>
  `${appUrl.replace(/\/$/, '')}/${kind}/${id}`;

/** Rounds a ratio for display without losing meaningful precision. */
export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
