// Upstash Redis REST API as @upstash/redis 1.x calls it: POST {base} with a JSON command array,
// POST {base}/pipeline and {base}/multi-exec with an array of commands (the client joins
// [baseUrl, ...path] with "/"). Bearer token required. With "Upstash-Encoding: base64" (the
// client's default) bulk strings are base64, recursively in arrays; numbers and null stay; the
// status "OK" stays plain (the client keeps "OK" as is, and decodes every other string).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { header, HttpError, readJson, sendJson } from './http-util';
import { ReplyError, Status, type RedisBackend, type Reply } from './redis-types';

// Connection-state commands would corrupt the shared connections behind the REST API.
const REFUSED = new Set([
  'MULTI',
  'EXEC',
  'DISCARD',
  'WATCH',
  'UNWATCH',
  'SELECT',
  'AUTH',
  'HELLO',
  'RESET',
  'QUIT',
  'SUBSCRIBE',
  'PSUBSCRIBE',
  'SSUBSCRIBE',
  'UNSUBSCRIBE',
  'PUNSUBSCRIBE',
  'MONITOR',
  'CLIENT',
]);

function toCommand(v: unknown): string[] {
  if (!Array.isArray(v) || v.length === 0) throw new HttpError(400, 'ERR a command must be a non-empty JSON array');
  return v.map((a) => {
    if (typeof a === 'string') return a;
    if (typeof a === 'number' || typeof a === 'boolean') return String(a);
    if (a === null) return 'null';
    return JSON.stringify(a);
  });
}

function encode(r: Reply, b64: boolean): unknown {
  if (r === null || typeof r === 'number') return r;
  if (Array.isArray(r)) return r.map((x) => encode(x, b64));
  if (r instanceof ReplyError) return r.message;
  if (r instanceof Status) return !b64 || r.value === 'OK' ? r.value : Buffer.from(r.value).toString('base64');
  const buf = typeof r === 'string' ? Buffer.from(r, 'utf8') : r;
  return b64 ? buf.toString('base64') : buf.toString('utf8');
}

function item(r: Reply, b64: boolean): { result: unknown } | { error: string } {
  return r instanceof ReplyError ? { error: r.message } : { result: encode(r, b64) };
}

function refused(cmd: string[]): ReplyError | undefined {
  const name = cmd[0].toUpperCase();
  if (!REFUSED.has(name)) return undefined;
  const hint = name === 'MULTI' || name === 'EXEC' ? '; use the multi-exec endpoint' : '';
  return new ReplyError(`ERR ${name} is not supported by the gateway's REST API${hint}`);
}

export function createUpstashHandler(backend: RedisBackend, token: string) {
  return async function handleRedis(req: IncomingMessage, res: ServerResponse, sub: string): Promise<void> {
    if (header(req, 'authorization') !== `Bearer ${token}`) {
      return sendJson(res, 401, { error: 'Unauthorized' });
    }
    const b64 = header(req, 'upstash-encoding')?.toLowerCase() === 'base64';
    const body = await readJson(req);

    if (sub === '') {
      const cmd = toCommand(body);
      const r = refused(cmd) ?? (await backend.exec(cmd));
      return r instanceof ReplyError ? sendJson(res, 400, { error: r.message }) : sendJson(res, 200, { result: encode(r, b64) });
    }
    if (!Array.isArray(body) || body.length === 0) {
      throw new HttpError(400, 'ERR expected a non-empty JSON array of commands');
    }
    const cmds = body.map(toCommand);
    const errors = cmds.map(refused);
    const bad = errors.find((e) => e !== undefined);
    if (sub === 'pipeline') {
      // A refused command fails alone; the others still run, in order.
      const allowed = cmds.filter((_, i) => !errors[i]);
      const out = allowed.length ? await backend.pipeline(allowed) : [];
      let j = 0;
      const replies = cmds.map((_, i) => errors[i] ?? out[j++]);
      return sendJson(
        res,
        200,
        replies.map((r) => item(r, b64)),
      );
    }
    if (bad) return sendJson(res, 400, { error: bad.message });
    const replies = await backend.multi(cmds);
    if (replies instanceof ReplyError) return sendJson(res, 400, { error: replies.message });
    sendJson(
      res,
      200,
      replies.map((r) => item(r, b64)),
    );
  };
}
