// A mention list's scan: finds the publications its terms match (GIN full-text indexes for the
// candidates, shared/mentions/match.ts for the decision), replaces the list's matches, and links each
// term to its publications in url_dimensions so that term metrics come from the roll-ups.
import type { Queryable } from '../../shared/db/queryable';
import { refreshActivity } from '../../shared/rollups/write-activity';
import { backfillBuckets } from '../../shared/rollups/write';
import { findMatch, snippet } from '../../shared/mentions/match';
import type { MatchType } from '../../shared/db/schema';
import { DAY_MS, HOUR_MS } from '../../shared/time/windows';

const SCAN_INTERVAL_MS = HOUR_MS;
const LOOKBACK_MS = 30 * DAY_MS;
const FIELDS = { title: ['title'], body: ['body'], both: ['title', 'body'] } as const;

interface Term {
  id: string;
  raw_text: string;
  match_type: MatchType;
}

const candidates = (field: 'title' | 'body', matchType: MatchType) => `
  SELECT a.id::text, a.${field} AS text FROM articles a
  WHERE to_tsvector('simple', search_norm(a.${field})) @@ ${matchType === 'broad' ? 'plainto_tsquery' : 'phraseto_tsquery'}('simple', search_norm($1))
    AND a.first_seen_at >= $2
    AND EXISTS (SELECT 1 FROM url_profiles p WHERE p.url_id = a.id
      AND (cardinality($3::text[]) = 0 OR p.country = ANY($3::text[])) AND (cardinality($4::text[]) = 0 OR p.language = ANY($4::text[])))`;

export interface ScanResult {
  matches: number;
  publications: number;
}

export async function scanMentionList(db: Queryable, listId: string, now: Date): Promise<ScanResult> {
  const {
    rows: [list],
  } = await db.query<{ countries: string[]; langs: string[]; search_scope: keyof typeof FIELDS; extraction_started_at: Date | null }>(
    `SELECT countries, langs, search_scope, extraction_started_at FROM tracking_lists WHERE id = $1 AND kind = 'mention'`,
    [listId],
  );
  if (!list) throw new Error(`no mention list ${listId}`);
  const { rows: terms } = await db.query<Term>(
    `SELECT id::text, raw_text, match_type FROM tracking_list_items WHERE list_id = $1 ORDER BY position`,
    [listId],
  );
  const since = new Date(
    Math.max(now.getTime() - LOOKBACK_MS, list.extraction_started_at ? new Date(list.extraction_started_at).getTime() - LOOKBACK_MS : 0),
  );
  const found: { term: string; url: string; field: string; matched: string; snippet: string }[] = [];
  for (const term of terms) {
    for (const field of FIELDS[list.search_scope] ?? FIELDS.title) {
      const { rows } = await db.query<{ id: string; text: string }>(candidates(field, term.match_type), [
        term.raw_text,
        since.toISOString(),
        list.countries,
        list.langs,
      ]);
      for (const row of rows) {
        const hit = findMatch(row.text, term.raw_text, term.match_type);
        if (hit)
          found.push({
            term: term.id,
            url: row.id,
            field,
            matched: row.text.slice(hit.index, hit.index + hit.length),
            snippet: snippet(row.text, hit),
          });
      }
    }
  }
  await db.query('BEGIN');
  try {
    // The list's row first: scans of one list commit one after the other, so a hit keeps the time it was
    // first found (matched_at) and a new hit's time is later than every earlier one: the order in which
    // GET .../matches/stream sends publications and resumes (docs/TRACKING.md "Match streams").
    await db.query('SELECT 1 FROM tracking_lists WHERE id = $1 FOR UPDATE', [listId]);
    // A statement of its own after the lock: its snapshot sees the scan that held it.
    const {
      rows: [{ at }],
    } = await db.query<{ at: string }>(
      `SELECT greatest($2::timestamptz, l.last_scanned_at + interval '1 microsecond',
         (SELECT max(matched_at) + interval '1 microsecond' FROM mention_matches WHERE list_id = $1))::text AS at
       FROM tracking_lists l WHERE l.id = $1`,
      [listId, now.toISOString()],
    );
    const hits = [found.map((f) => f.term), found.map((f) => f.url), found.map((f) => f.field)];
    await db.query(
      `DELETE FROM mention_matches m WHERE m.list_id = $1
         AND (m.term_id, m.url_id, m.field) NOT IN (SELECT * FROM unnest($2::uuid[], $3::uuid[], $4::text[]))`,
      [listId, ...hits],
    );
    await db.query(
      `INSERT INTO mention_matches (list_id, term_id, url_id, field, matched_text, snippet, matched_at)
       SELECT $1, t, u, f, m, s, $7 FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[]) AS x(t, u, f, m, s)
       ON CONFLICT (term_id, url_id, field) DO UPDATE SET matched_text = excluded.matched_text, snippet = excluded.snippet`,
      [listId, ...hits, found.map((f) => f.matched), found.map((f) => f.snippet), at],
    );
    const { rows: changes } = await db.query<{ kind: string; key: string; url_id: string; sign: number }>(
      `WITH want AS (SELECT DISTINCT 'term'::text AS kind, term_id::text AS key, url_id FROM mention_matches WHERE list_id = $1),
       have AS (SELECT kind, key, url_id FROM url_dimensions WHERE kind = 'term' AND key = ANY($2::text[])),
       added AS (SELECT * FROM want EXCEPT SELECT * FROM have), removed AS (SELECT * FROM have EXCEPT SELECT * FROM want),
       ins AS (INSERT INTO url_dimensions (kind, key, url_id) SELECT * FROM added RETURNING 1),
       del AS (DELETE FROM url_dimensions d USING removed r WHERE (d.kind, d.key, d.url_id) = (r.kind, r.key, r.url_id) RETURNING 1)
       SELECT kind, key, url_id::text, 1 AS sign FROM added UNION ALL SELECT kind, key, url_id::text, -1 FROM removed`,
      [listId, terms.map((t) => t.id)],
    );
    if (changes.length) {
      await backfillBuckets(db, changes);
      await refreshActivity(db, {
        joined: changes.filter((c) => c.sign > 0).map((c) => c.url_id),
        removed: changes.filter((c) => c.sign < 0),
      });
    }
    await db.query(
      `UPDATE tracking_lists SET last_scanned_at = $2, next_scan_at = $3, scan_status = 'succeeded', scan_error = NULL WHERE id = $1`,
      [listId, now.toISOString(), new Date(now.getTime() + SCAN_INTERVAL_MS).toISOString()],
    );
    await db.query('COMMIT');
  } catch (err) {
    await db.query('ROLLBACK').catch(() => undefined);
    // Callers see a code and a fixed message (scan_error); the raw exception goes to the log only.
    await db.query(`UPDATE tracking_lists SET scan_status = 'failed', scan_error = $2 WHERE id = $1`, [listId, scanErrorOf(err)]);
    throw err;
  }
  return { matches: found.length, publications: new Set(found.map((f) => f.url)).size };
}

/** A failed scan as stored for its list's readers: `code: message`, never the exception's own text. */
export function scanErrorOf(err: unknown): string {
  const code = String((err as { code?: unknown })?.code ?? '');
  if (code === '57014') return 'scan_timeout: The scan took longer than its time budget; it is retried at the next scan.';
  if (/^(08|53|57P)/.test(code)) return 'database_unavailable: The database was briefly unavailable; the scan is retried.';
  return 'scan_failed: The scan could not complete; it is retried at the next scan.';
}

/** Mention lists whose next scan is due. */
export async function listsDueForScan(db: Queryable, now: Date, limit = 20): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id::text FROM tracking_lists WHERE kind = 'mention' AND active AND (next_scan_at IS NULL OR next_scan_at <= $1)
     ORDER BY next_scan_at NULLS FIRST LIMIT $2`,
    [now.toISOString(), limit],
  );
  return rows.map((r) => r.id);
}
