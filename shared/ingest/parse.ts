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
  const result = RECORD_SCHEMAS[type as RecordType].safeParse(json);
  if (!result.success) return { ok: false, reason: `${type}: ${describe(result.error)}` };
  return { ok: true, record: result.data as IngestRecord };
}
