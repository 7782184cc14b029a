// Resume tokens (the `id:` of every event, sent back as Last-Event-ID): signed cursors (shared/http/cursor.ts),
// bound like a page cursor to the key's project (or the key), its markets and plan categories, the
// route and the stream's filters. `k` is the event's position, `s` and `t` what the stream pinned when
// it was first opened (its backfill snapshot and since floor); `n` the event's time, so a token lasts
// the 1440-minute horizon. Altered, foreign (another key, query or route) and expired tokens are 400.
import type { Context } from 'hono';
import { cursorSecret, digest, openCursor, RESUME_ADVICE, signCursor, type CursorPayload } from '../http/cursor';
import type { Env } from '../env';

export async function streamBinding(c: Context<Env>, params: Record<string, unknown>): Promise<string> {
  const { auth } = c.var;
  return digest(
    auth.projectId ?? `key:${auth.keyId}`,
    JSON.stringify(auth.allowedCountries),
    JSON.stringify(auth.categories),
    JSON.stringify(params),
  );
}

/** The Last-Event-ID the request resumes from (null: a new stream), verified: 400 when it is not this stream's. */
export async function resumeOf(c: Context<Env>, binding: string): Promise<CursorPayload | null> {
  const id = c.req.header('Last-Event-ID')?.trim();
  if (!id) return null;
  return openCursor(cursorSecret(c.var.config), id, binding, c.var.clock.now(), { text: RESUME_ADVICE, what: 'Last-Event-ID' });
}

/** Signs positions for this stream: `s` and `t` pinned, `n` the time of signing. Null without a trusted key. */
export function tokenSigner(c: Context<Env>, binding: string, s: number, t: number) {
  const secret = cursorSecret(c.var.config);
  const { clock } = c.var;
  return async (k: unknown[]): Promise<string | null> =>
    secret ? signCursor(secret, { b: binding, k, n: clock.now().toISOString(), t, s }) : null;
}
