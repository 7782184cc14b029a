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
  private lastStatus = 0;

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
    if (this.type === 0x5a) this.lastStatus = this.status;
    this.endedIdle = this.type === 0x5a && this.status === 0x49; /* 'I' */
    this.headerFill = 0;
    this.remaining = 0;
  }

  idle(): boolean {
    return this.endedIdle && this.headerFill === 0;
  }

  /** The status of the last ReadyForQuery: 'I' idle, 'T' in a transaction, 'E' in a failed one ('' before any). */
  transactionStatus(): string {
    return this.lastStatus ? String.fromCharCode(this.lastStatus) : '';
  }
}

/** The startup message's parameters (user, database, application_name, ...). */
export function startupParams(bytes: Buffer): Record<string, string> {
  const parts = bytes.subarray(8).toString('utf8').split('\0');
  const params: Record<string, string> = {};
  for (let i = 0; i + 1 < parts.length && parts[i]; i += 2) params[parts[i]] = parts[i + 1];
  return params;
}

/** The SQL text a Query ('Q') or Parse ('P') message carries, shortened for a log line; else undefined. */
export function statementText(bytes: Buffer, max = 120): string | undefined {
  let text: string;
  if (bytes[0] === 0x51 /* Q */) text = bytes.subarray(5).toString('utf8');
  else if (bytes[0] === 0x50 /* P */) {
    const nameEnd = bytes.indexOf(0, 5);
    if (nameEnd < 0) return undefined;
    text = bytes.subarray(nameEnd + 1, bytes.indexOf(0, nameEnd + 1)).toString('utf8');
  } else return undefined;
  const flat = text.replace(/\0+$/, '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
}

/** An ErrorResponse ('E') with severity, SQLSTATE code and message, as a server sends it. */
export function errorResponse(severity: 'ERROR' | 'FATAL', code: string, message: string): Buffer {
  const fields = Buffer.from(`S${severity}\0V${severity}\0C${code}\0M${message}\0\0`, 'utf8');
  const head = Buffer.alloc(5);
  head[0] = 0x45;
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}
