// Opens a push stream on the all-in-one Worker and reads its Server-Sent Events as they arrive.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import worker from '../../functions/index';
import type { World } from './world';

export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
  retry?: number;
}

export interface OpenStream {
  status: number;
  headers: Headers;
  /** Everything parsed so far, comments and `retry:` included. */
  frames: SseEvent[];
  /** The data events (`event: item` / `publication`) so far. */
  events(name?: string): SseEvent[];
  /** Waits until `done(frames)` holds (rejects after `ms`). */
  until(done: (frames: SseEvent[]) => boolean, ms?: number): Promise<void>;
  /** Cuts the stream (the client goes away). */
  close(): Promise<void>;
  /** Resolves once the request's work under waitUntil has finished. */
  settled(): Promise<void>;
  /** Stops reading (a slow client: the server's writes wait) until `resume()`. */
  pause(): void;
  resume(): void;
  /** The error body of a refused stream. */
  text?: string;
}

function parse(block: string): SseEvent {
  const e: SseEvent = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) e.comment = line.slice(1).trim();
    else {
      const at = line.indexOf(':');
      const field = at < 0 ? line : line.slice(0, at);
      const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
      if (field === 'id') e.id = value;
      else if (field === 'event') e.event = value;
      else if (field === 'data') e.data = e.data === undefined ? value : `${e.data}\n${value}`;
      else if (field === 'retry') e.retry = Number(value);
    }
  }
  return e;
}

export async function openStream(
  world: World,
  path: string,
  key: string,
  headers: Record<string, string> = {},
  env: Record<string, string> = {},
): Promise<OpenStream> {
  const request = new Request(`http://api.test${path}`, { headers: { 'X-API-Key': key, ...headers } });
  const ctx = createExecutionContext();
  const response = await worker.fetch(request as never, { ...world.env, ...env } as never, ctx);
  const settled = () => waitOnExecutionContext(ctx);
  const frames: SseEvent[] = [];
  if (response.status !== 200 || !response.body) {
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      frames,
      events: () => [],
      until: async () => {},
      close: async () => {},
      settled,
      pause: () => {},
      resume: () => {},
      text,
    };
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let ended = false;
  const waiters = new Set<() => void>();
  let paused = null as { promise: Promise<void>; resolve: () => void } | null;
  const pump = (async () => {
    try {
      for (;;) {
        if (paused) await paused.promise;
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          // A blank line alone is no event (the stream's probe between events).
          if (buffer.slice(0, cut).trim()) frames.push(parse(buffer.slice(0, cut)));
          buffer = buffer.slice(cut + 2);
          cut = buffer.indexOf('\n\n');
        }
        for (const w of waiters) w();
      }
    } catch {}
    ended = true;
    for (const w of waiters) w();
  })();
  return {
    status: response.status,
    headers: response.headers,
    frames,
    events: (name) => frames.filter((f) => f.data !== undefined && (name === undefined || f.event === name)),
    until(done, ms = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (done(frames)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          } else if (ended) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`stream ended before the condition held: ${JSON.stringify(frames.slice(-3))}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting; frames so far: ${JSON.stringify(frames.map((f) => f.event ?? f.comment ?? f.retry))}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    async close() {
      paused?.resolve();
      await reader.cancel().catch(() => undefined);
      await pump;
    },
    settled,
    pause() {
      if (paused) return;
      let resolve = () => {};
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      paused = { promise, resolve };
    },
    resume() {
      paused?.resolve();
      paused = null;
    },
  };
}
