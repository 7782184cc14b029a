// Just enough of the PostgreSQL v3 wire protocol to cut a client's byte stream into messages
// and to see, in the server's output, when a connection is back at ReadyForQuery/Idle.
// Used by the PGlite multiplexer (pglite-backend.ts); the real-server relay needs none of it.

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

export type ClientMessageKind = 'startup' | 'ssl' | 'gss' | 'cancel' | 'terminate' | 'msg';
export interface ClientMessage {
  kind: ClientMessageKind;
  bytes: Buffer;
}

/** Sync ('S', length 4): ends an extended-protocol exchange so the server answers ReadyForQuery. */
export const SYNC_MESSAGE = new Uint8Array([0x53, 0, 0, 0, 4]);

/**
 * Splits complete messages off the front of `buf`. Before startup, messages have no type byte
 * (length first); SSL/GSS/cancel requests are recognised by their code.
 */
export function splitMessages(buf: Buffer, started: boolean): { messages: ClientMessage[]; rest: Buffer; startupDone: boolean } {
  const messages: ClientMessage[] = [];
  let off = 0;
  while (true) {
    if (!started) {
      if (buf.length - off < 8) break;
      const len = buf.readInt32BE(off);
      if (len < 8 || buf.length - off < len) break;
      const code = buf.readInt32BE(off + 4);
      const bytes = buf.subarray(off, off + len);
      off += len;
      if (code === SSL_REQUEST) messages.push({ kind: 'ssl', bytes });
      else if (code === GSS_REQUEST) messages.push({ kind: 'gss', bytes });
      else if (code === CANCEL_REQUEST) messages.push({ kind: 'cancel', bytes });
      else {
        messages.push({ kind: 'startup', bytes });
        started = true;
      }
      continue;
    }
    if (buf.length - off < 5) break;
    const len = buf.readInt32BE(off + 1);
    if (len < 4 || buf.length - off < len + 1) break;
    const type = buf[off];
    const bytes = buf.subarray(off, off + len + 1);
    off += len + 1;
    messages.push({ kind: type === 0x58 /* X */ ? 'terminate' : 'msg', bytes });
  }
  // Copy the remainder so the (possibly large) original chunk is not kept alive.
  return { messages, rest: Buffer.from(buf.subarray(off)), startupDone: started };
}

/**
 * Follows the framing of the server's output across chunks and tells whether the output of the
 * current step ended with ReadyForQuery in state Idle ('Z', status 'I').
 */
export class OutputTracker {
  private readonly header = Buffer.alloc(5);
  private headerFill = 0;
  private remaining = 0;
  private type = 0;
  private status = 0;
  private endedIdle = true; // a new connection owns nothing and is idle

  /** Called before each client message is executed. */
  begin(): void {
    this.endedIdle = false;
  }

  feed(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.headerFill < 5) {
        this.header[this.headerFill++] = chunk[i++];
        this.endedIdle = false;
        if (this.headerFill === 5) {
          this.type = this.header[0];
          this.remaining = this.header.readInt32BE(1) - 4;
          this.status = 0;
          if (this.remaining <= 0) this.complete();
        }
        continue;
      }
      const n = Math.min(this.remaining, chunk.length - i);
      if (this.type === 0x5a /* Z */ && this.status === 0) this.status = chunk[i];
      i += n;
      this.remaining -= n;
      if (this.remaining === 0) this.complete();
    }
  }

  private complete(): void {
    this.endedIdle = this.type === 0x5a && this.status === 0x49; /* 'I' */
    this.headerFill = 0;
    this.remaining = 0;
  }

  idle(): boolean {
    return this.endedIdle && this.headerFill === 0;
  }
}
