// One NDJSON line -> a validated, normalized record, or a short human-readable reason.
import type { z } from 'zod';
import { RECORD_SCHEMAS, type IngestRecord, type RecordType } from './records';

export type Parsed = { ok: true; record: IngestRecord } | { ok: false; reason: string };

const MAX_ISSUES = 3;

function describe(error: z.ZodError): string {
  const parts = error.issues.slice(0, MAX_ISSUES).map((i) => {
    const path = i.path.map(String).join('.');
    return path ? `${path}: ${i.message}` : i.message;
  });
  const more = error.issues.length - MAX_ISSUES;
  return parts.join('; ') + (more > 0 ? ` (+${more} more)` : '');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const ALPHA_2 = /^[A-Za-z]{2}$/;
const LANGUAGE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$/;
const WHOLE_HOUR = /^\d{4}-\d{2}-\d{2}T\d{2}:00:00(\.000)?(Z|[+-]00:00)$/;

/**
 * Observations are ~95% of a bench file. Lines that plainly satisfy the schema skip zod (much faster:
 * docs/BENCHMARKS.md "Ingest"); the checks accept a subset of what the schema accepts and normalize the
 * same way, and anything else goes through the schema, so verdicts and reasons are unchanged.
 */
function fastObservation(j: Record<string, unknown>): IngestRecord | null {
  const { url_id, country, language, hour, impressions, position } = j;
  if (typeof url_id !== 'string' || !UUID.test(url_id)) return null;
  if (typeof country !== 'string' || !ALPHA_2.test(country)) return null;
  if (typeof language !== 'string' || !LANGUAGE.test(language)) return null;
  if (typeof hour !== 'string' || !WHOLE_HOUR.test(hour)) return null;
  if (typeof impressions !== 'number' || !Number.isInteger(impressions) || impressions < 0 || impressions > 2_147_483_647) return null;
  if (typeof position !== 'number' || !Number.isFinite(position) || position <= 0) return null;
  const ms = Date.parse(hour);
  if (Number.isNaN(ms)) return null;
  const iso = new Date(ms).toISOString();
  if (iso.slice(0, 13) !== hour.slice(0, 13)) return null; // not a calendar date (2026-02-30): let the schema say so
  return {
    type: 'observation',
    url_id: url_id.toLowerCase(),
    country: country.toUpperCase(),
    language: language.toLowerCase(),
    hour: iso,
    impressions,
    position,
  };
}

export function parseLine(line: string): Parsed {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (e) {
    return { ok: false, reason: `invalid JSON: ${(e as Error).message}` };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return { ok: false, reason: 'a line must be a JSON object' };
  }
  const type = (json as { type?: unknown }).type;
  if (typeof type !== 'string') return { ok: false, reason: 'missing "type"' };
  // Own-property check: "constructor" or "__proto__" must not pass as a type.
  if (!Object.hasOwn(RECORD_SCHEMAS, type)) return { ok: false, reason: `unknown type "${type}"` };
  if (type === 'observation') {
    const record = fastObservation(json as Record<string, unknown>);
    if (record) return { ok: true, record };
  }
  const result = RECORD_SCHEMAS[type as RecordType].safeParse(json);
  if (!result.success) return { ok: false, reason: `${type}: ${describe(result.error)}` };
  return { ok: true, record: result.data as IngestRecord };
}
