// Small helpers for the node:http handlers.
import type { IncomingMessage, ServerResponse } from 'node:http';

const MAX_BODY = 64 * 1024 * 1024; // ingest batches can be large; this only guards runaway input

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_BODY) throw new HttpError(413, 'request body too large');
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/** Each request's parsed body, for the trip log's labels (`GET /stats?spans=1`). */
export const parsedBodies = new WeakMap<IncomingMessage, unknown>();

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const body = await readBody(req);
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    parsedBodies.set(req, parsed);
    return parsed;
  } catch {
    throw new HttpError(400, 'request body is not valid JSON');
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}
