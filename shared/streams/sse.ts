// Server-Sent Events framing (WHATWG HTML "Server-sent events"): one event is `id:`, `event:` and
// `data:` lines ended by a blank line; a line starting with `:` is a comment (the heartbeat).
const encoder = new TextEncoder();

/** What clients wait before reconnecting after the stream ends (the `retry:` field), in ms. */
export const RETRY_MS = 5_000;
/** A comment line this often keeps proxies from closing an idle stream. */
export const HEARTBEAT_MS = 15_000;
/** The server closes every stream after this long; clients resume with Last-Event-ID. */
export const MAX_STREAM_MS = 60 * 60_000;

export const STREAM_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Accel-Buffering': 'no',
} as const;

/** One event; `data` is one line of JSON (JSON.stringify never emits a raw newline). */
export const eventText = (id: string, event: string, data: string) => `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;

export const commentText = (text: string) => `: ${text}\n\n`;

export const retryText = (ms = RETRY_MS) => `retry: ${ms}\n\n`;

export const encode = (text: string) => encoder.encode(text);
