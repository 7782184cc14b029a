// Embedded PostgreSQL (PGlite) served on a loopback TCP port, so the rest of the gateway
// talks to it exactly like to a real server (node-postgres for /sql, a byte relay for /v1).
//
// Why not @electric-sql/pglite-socket's PGLiteSocketServer: PGlite is one backend, and that
// server interleaves single protocol messages from different connections. With two clients in
// flight, client A's Parse can be followed by client B's Parse before A's Bind, giving
// "unnamed prepared statement does not exist" (reproduced with 10 concurrent pg clients).
// Here a connection owns PGlite from its first message until PGlite reports ReadyForQuery
// with status Idle; others wait in FIFO order (pglite-lock.ts). An open transaction therefore blocks
// other connections until it ends, which is the price of a single-connection database; a holder that
// goes quiet is rolled back and closed by the lock's watchdog.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { errorResponse, OutputTracker, splitMessages, startupParams, statementText, SYNC_MESSAGE } from './pg-wire';
import { OwnerLock, watchLock, type LockHolder } from './pglite-lock';

export interface PgliteServer {
  host: string;
  port: number;
  db: PGlite;
  /** The connection that holds PGlite now, for error messages; null when it is free. */
  holder(): string | null;
  /** Names the connection coming from local port `port` of this host in log lines (the WebSocket relay's). */
  label(port: number, name: string): void;
  close(): Promise<void>;
}

export interface PgliteServerOptions {
  host?: string;
  /** A holder quiet for longer than this is rolled back and closed (the gateway passes the ingest statement timeout). */
  quietLimitMs: number;
  log?: (line: string) => void;
}

let sessionIds = 0;

class Session implements LockHolder {
  private buf: Buffer = Buffer.alloc(0);
  private started = false;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly out = new OutputTracker();
  private readonly id = ++sessionIds;
  private app = '';
  private lastStatement = '';
  /** When its last message ended (0 while one runs). */
  private quietSince = Date.now();

  constructor(
    private readonly socket: Socket,
    private readonly db: PGlite,
    private readonly lock: OwnerLock,
    private readonly peer: () => string,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (d) => this.onData(d));
    socket.on('error', () => this.onClose());
    socket.on('close', () => this.onClose());
  }

  private onData(data: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, data]) : data;
    const { messages, rest, startupDone } = splitMessages(this.buf, this.started);
    this.buf = rest;
    this.started = startupDone;
    for (const m of messages) this.chain = this.chain.then(() => this.handle(m));
  }

  private async handle(m: { kind: string; bytes: Buffer }): Promise<void> {
    if (this.closed) return;
    if (m.kind === 'ssl' || m.kind === 'gss') {
      this.socket.write('N'); // no TLS on loopback; the client continues in cleartext
      return;
    }
    if (m.kind === 'cancel') {
      this.socket.destroy(); // PGlite has no backend process to signal
      return;
    }
    if (m.kind === 'terminate') {
      this.socket.end(); // never forwarded: it would shut down the one PGlite backend
      return;
    }
    if (m.kind === 'startup') this.app = startupParams(m.bytes).application_name ?? '';
    await this.lock.acquire(this);
    if (this.closed) return this.finish();
    this.out.begin();
    this.lastStatement = statementText(m.bytes) ?? this.lastStatement;
    this.quietSince = 0;
    try {
      await this.db.runExclusive(() =>
        this.db.execProtocolRawStream(new Uint8Array(m.bytes), {
          onRawData: (chunk) => {
            this.out.feed(chunk);
            if (!this.closed) this.socket.write(Buffer.from(chunk));
          },
        }),
      );
    } catch (err) {
      this.socket.destroy(err instanceof Error ? err : new Error(String(err)));
      return this.finish();
    } finally {
      this.quietSince = Date.now();
    }
    if (this.out.idle()) this.lock.release(this);
  }

  describe(): string {
    const tx =
      { T: 'in a transaction', E: 'in a failed transaction', I: 'in an unfinished exchange' }[this.out.transactionStatus()] ??
      'starting up';
    const app = this.app ? ` "${this.app}"` : '';
    const last = this.lastStatement ? `, last statement: ${this.lastStatement}` : '';
    return `connection #${this.id}${app} (${this.peer()}, ${tx}${last})`;
  }

  quietFor(now: number): number {
    return this.quietSince === 0 ? 0 : now - this.quietSince;
  }

  evict(reason: string): void {
    // As PostgreSQL ends an idle-in-transaction session: FATAL 25P03, then the connection closes
    // (onClose rolls the transaction back and passes the lock on).
    if (!this.closed) this.socket.end(errorResponse('FATAL', '25P03', `terminating connection: it ${reason} (local gateway watchdog)`));
    setTimeout(() => this.socket.destroy(), 1_000).unref();
    this.onClose();
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.lock.drop(this);
    this.chain = this.chain.then(() => this.finish());
  }

  /** Leave PGlite idle for the next connection, then hand the lock on. */
  private async finish(): Promise<void> {
    if (!this.lock.owns(this)) return;
    try {
      if (!this.out.idle()) {
        // Ends an unfinished extended-protocol exchange, then undoes an open transaction.
        await this.db.runExclusive(() => this.db.execProtocolRaw(SYNC_MESSAGE));
        if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
      }
    } catch {
      // PGlite will report its own state to the next user; nothing more to do here.
    }
    this.lock.release(this);
  }
}

/**
 * One process per data directory: PGlite opens a directory another process has open without a word,
 * and the two then write the same files (tables one of them never sees, catalogs that disagree after
 * a restart). `DIR.lock` holds the owner's pid; a lock whose process is gone is taken over.
 */
function claimDirectory(dir: string): () => void {
  const file = `${dir.replace(/\/+$/, '')}.lock`;
  let holder = Number.NaN;
  try {
    holder = Number(readFileSync(file, 'utf8'));
  } catch {}
  if (holder > 0 && holder !== process.pid && alive(holder)) {
    throw new Error(
      `the embedded database ${dir} is open in process ${holder} (npm start or a gateway): reach it through that process's gateway (DATA_DIR/gateway.json), or stop it first`,
    );
  }
  writeFileSync(file, String(process.pid));
  return () => rmSync(file, { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function startPgliteServer(dir: string, opts: PgliteServerOptions): Promise<PgliteServer> {
  const host = opts.host ?? '127.0.0.1';
  // 'memory://' (and other URL-like schemes) are PGlite storage kinds, not directories.
  const onDisk = !/^[a-z]+:\/\//.test(dir);
  if (onDisk) mkdirSync(dir, { recursive: true });
  const unclaim = onDisk ? claimDirectory(dir) : () => undefined;
  // pg_trgm is a contrib extension in PGlite: loaded here so that the same migrations (trigram
  // indexes, drizzle/0007_entities.sql) serve the embedded database and PostgreSQL.
  const db = await PGlite.create(dir, { extensions: { pg_trgm } }).catch((err: unknown) => {
    unclaim();
    throw err;
  });
  const lock = new OwnerLock();
  const stopWatchdog = watchLock(lock, {
    quietLimitMs: opts.quietLimitMs,
    log: opts.log ?? ((line) => console.error(line)),
  });
  const labels = new Map<number, string>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    const port = socket.remotePort ?? 0;
    socket.on('close', () => {
      sockets.delete(socket);
      labels.delete(port);
    });
    // The relay names its connections right after connecting, before their first message.
    new Session(socket, db, lock, () => labels.get(port) ?? `local port ${port}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('pglite server: no TCP address');
  return {
    host,
    port: addr.port,
    db,
    holder: () => lock.state()?.holder.describe() ?? null,
    label: (port, name) => void labels.set(port, name),
    async close() {
      stopWatchdog();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
      unclaim();
    },
  };
}
