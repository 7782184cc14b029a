// The one reader of ISO 8601 dates in query parameters (spec: "ISO 8601, UTC"). A date without a
// time (`2026-11-01`) is that day's midnight UTC; a time without an offset (`2026-11-01T08:00`) is
// UTC; an explicit offset or `Z` is honoured. A space where the offset's `+` should be (a `+` sent
// unencoded in a query string decodes to a space) is read as `+`.
import { z } from '@hono/zod-openapi';

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+\- ]\d{2}:?\d{2})?)?$/i;

/** The instant a query's ISO 8601 value names, read as UTC when it carries no offset; null when it is not one. */
export function parseIsoUtc(value: string): Date | null {
  const m = ISO.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', offset = 'Z'] = m;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, Math.floor(Number(`0${frac || '.0'}`) * 1000));
  // Date.UTC rolls 2026-02-30 over to March: a day that does not exist is not a date.
  if (new Date(utc).getUTCDate() !== day) return null;
  let shift = 0;
  if (offset.toUpperCase() !== 'Z') {
    const digits = offset.slice(1).replace(':', '');
    const sign = offset[0] === '-' ? -1 : 1;
    shift = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return new Date(utc - shift);
}

/**
 * How far past now a `date_from`/`date_to` may lie (docs/SECURITY.md "Windows bounded to now"): one day, so a day-grain window that
 * includes today can end at the next midnight UTC (its exclusive end) whatever the caller's clock skew.
 * Later is 422 at validation, never a window a query or a queued job could fail on (`9999-12-31`
 * overflowed time zone arithmetic in PostgreSQL and left the caller at 503 `computing`).
 */
export const FUTURE_SLACK_MS = 24 * 3_600_000;

/** The OpenAPI wording of that bound, appended to every date parameter's description. */
export const FUTURE_SLACK_NOTE = ' Later than now plus one day (24 hours) is 422.';

/** The 422 message for a date past the bound, or null when it is within it. */
export function futureDateError(value: string, now: Date): string | null {
  const at = parseIsoUtc(value);
  if (at === null || at.getTime() <= now.getTime() + FUTURE_SLACK_MS) return null;
  return `Must not be later than now plus one day (${new Date(now.getTime() + FUTURE_SLACK_MS).toISOString()})`;
}

const INVALID =
  'Expected an ISO 8601 date or date-time (e.g. 2026-11-01, 2026-11-01T08:00:00, 2026-11-01T08:00:00Z); without an offset it is read as UTC';

/**
 * An optional ISO 8601 query parameter, validated and normalised to `YYYY-MM-DDTHH:MM:SS.sssZ`
 * (UTC), so every reader downstream sees one form.
 */
export const isoQueryParam = (description: string, example: string) =>
  z
    .string()
    .superRefine((v, ctx) => {
      // Reported as a datetime format issue (422 type `datetime_parsing`), as z.iso.datetime would.
      if (parseIsoUtc(v) === null) ctx.addIssue({ code: 'invalid_format', format: 'datetime', input: v, message: INVALID });
    })
    .transform((v) => parseIsoUtc(v)!.toISOString())
    .optional()
    .openapi({
      type: 'string',
      description: `${description} ISO 8601: a date (\`2026-11-01\`, midnight UTC) or a date-time; without an offset it is read as UTC.${FUTURE_SLACK_NOTE}`,
      example,
    });
