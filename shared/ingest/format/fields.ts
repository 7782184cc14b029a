// Field validators shared by the NDJSON record schemas. Normalization happens here, once, so
// every writer can trust keys: clean lower-case domains, upper-case countries, lower-case languages.
import { z } from 'zod';
import { CATEGORY_PATH } from '../../schemas/categories';
import { normalizeDomain } from '../../schemas/domains';

/**
 * `WWW.Example.com` / `https://www.example.com/x` -> `example.com`; Unicode names become punycode
 * (`münchen.de` -> `xn--mnchen-3ya.de`), the form the public profile check looks up.
 */
export function cleanDomain(input: string): string {
  const normalized = normalizeDomain(input);
  if (normalized.ok) return normalized.domain;
  let d = input.trim().toLowerCase();
  d = d
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/[/?#].*$/, '')
    .replace(/:\d+$/, '');
  return d.replace(/^www\./, '').replace(/\.$/, '');
}

export const domain = z
  .string()
  .min(1)
  .transform(cleanDomain)
  .pipe(z.string().regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/, 'not a domain name'))
  .describe('Domain; stored lower-case without scheme, path or `www.`');

/** ISO 3166-1 alpha-2, stored upper-case. */
export const country = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'expected an alpha-2 country code')
  .transform((s) => s.toUpperCase())
  .describe('ISO 3166-1 alpha-2 country code; stored upper-case');

/** ISO 639-1 (optionally with a subtag, `pt-br`), stored lower-case. */
export const language = z
  .string()
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$/, 'expected a language code')
  .transform((s) => s.toLowerCase())
  .describe('ISO 639-1 language code; stored lower-case');

export const uuid = z.uuid().transform((s) => s.toLowerCase());

/** ISO 8601 timestamp with `Z` or an explicit offset; kept as text, Postgres parses it. */
export const timestamp = z.iso.datetime({ offset: true });

/** An hour bucket: must sit exactly on a UTC hour boundary; normalized to `...T..:00:00.000Z`. */
export const hour = z.iso
  .datetime({ offset: true })
  .transform((s, ctx) => {
    const ms = Date.parse(s);
    if (ms % 3_600_000 !== 0) {
      ctx.addIssue({ code: 'custom', message: 'hour must be truncated to the hour (UTC)' });
      return z.NEVER;
    }
    return new Date(ms).toISOString();
  })
  .describe('Start of a UTC hour, ISO 8601 with offset (e.g. 2026-03-01T10:00:00+00:00)');

export const isoDate = z.iso.date();

export const text = z.string();
export const nonEmpty = z.string().trim().min(1);

/** Optional and nullable, normalized to null so writers see one "absent" value. */
export function opt<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((v) => v ?? null);
}

export const count = z.number().int().nonnegative();
/** Counts stored in Postgres `integer` columns. */
export const int32 = count.max(2_147_483_647);
export const score = z.number().finite();
export const strings = z.array(z.string());

/** Category taxonomy path, case-sensitive: `/Sports/Soccer`; the rule the read filters take, so every stored path can be asked for. */
export const categoryPath = z.string().regex(CATEGORY_PATH, "expected a taxonomy path like /Top/Sub (no ';')");
