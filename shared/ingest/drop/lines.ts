// An object's lines as a stream, never the whole file in memory: split on bytes (so each line's end is
// a byte offset a plain file's next read can start from), decoded strictly as UTF-8, gzip detected by
// its magic bytes and inflated on the way (DecompressionStream). Runtime-neutral (workerd and Node).

/** A file that no retry can read: it ends its run failed, with this reason, in the dead-letter queue. */
export class UnreadableError extends Error {}

/** A read of the object itself failed (transient: the run is retried, not failed). */
class SourceError extends Error {}

export interface Line {
  /** 1-based physical line number in the (decompressed) object. */
  number: number;
  text: string;
  /** Byte offset just past this line's newline (decompressed bytes for gzip). */
  end: number;
}

/** Longer than this without a newline: not NDJSON (and bounded memory). */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

export type Format = 'ndjson' | 'gzip';

/** Reads the first bytes of `body` to tell gzip from plain text; the stream returned starts over with them. */
export async function sniff(body: ReadableStream<Uint8Array>): Promise<{ format: Format; stream: ReadableStream<Uint8Array> }> {
  const reader = body.getReader();
  const read = () =>
    reader.read().catch((e) => {
      throw new SourceError(`reading the object: ${(e as Error).message}`);
    });
  // The first chunks until two bytes are seen (a stream may begin with an empty chunk).
  const start: Uint8Array[] = [];
  let seen = 0;
  for (;;) {
    const { done, value } = await read();
    if (done) break;
    start.push(value);
    seen += value.length;
    if (seen >= 2) break;
  }
  let head: Uint8Array | undefined = start.length ? concat(start, seen) : undefined;
  // Decided before the stream below exists: its first pull (right away) hands `head` on.
  const gzip = head !== undefined && head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (head) {
        controller.enqueue(head);
        head = undefined;
        return;
      }
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (e) {
        controller.error(new SourceError(`reading the object: ${(e as Error).message}`));
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  if (!gzip) return { format: 'ndjson', stream };
  // The DOM typings' DecompressionStream writes BufferSource, a wider type than the Uint8Array chunks it gets.
  const inflate = new DecompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>;
  return { format: 'gzip', stream: stream.pipeThrough(inflate) };
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * The lines of `stream`, which starts at byte `startByte` of the object, after `startLine` lines.
 * A last line without a newline is a line. `\r\n` endings are accepted.
 */
export async function* readLines(stream: ReadableStream<Uint8Array>, format: Format, startByte = 0, startLine = 0): AsyncGenerator<Line> {
  // As the CLI's readline: invalid UTF-8 becomes U+FFFD (such a line is then usually a bad line).
  const decoder = new TextDecoder('utf-8');
  const reader = stream.getReader();
  let number = startLine;
  let offset = startByte;
  let parts: Uint8Array[] = [];
  let pending = 0;
  const emit = (bytes: Uint8Array): Line => {
    number++;
    offset += bytes.length;
    const text = decoder.decode(bytes);
    return { number, text: text.endsWith('\n') ? text.slice(0, text.endsWith('\r\n') ? -2 : -1) : text, end: offset };
  };
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        if (e instanceof SourceError) throw e;
        throw new UnreadableError(format === 'gzip' ? `bad gzip: ${(e as Error).message}` : `unreadable: ${(e as Error).message}`);
      }
      if (chunk.done) break;
      const bytes = chunk.value;
      let from = 0;
      for (let nl = bytes.indexOf(0x0a); nl !== -1; nl = bytes.indexOf(0x0a, from)) {
        const piece = bytes.subarray(from, nl + 1);
        yield emit(concat([...parts, piece], pending + piece.length));
        parts = [];
        pending = 0;
        from = nl + 1;
      }
      if (from < bytes.length) {
        parts.push(bytes.slice(from));
        pending += bytes.length - from;
        if (pending > MAX_LINE_BYTES) throw new UnreadableError(`not NDJSON: line ${number + 1} is longer than ${MAX_LINE_BYTES} bytes`);
      }
    }
    if (pending > 0) yield emit(concat(parts, pending));
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/** Whether an error is the file's fault (fail the run) rather than the platform's (retry). */
export const isUnreadable = (e: unknown): e is UnreadableError => e instanceof UnreadableError;
