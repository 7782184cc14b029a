// Embedded PostgreSQL (PGlite) served on a loopback TCP port, so the rest of the gateway
// talks to it exactly like to a real server (node-postgres for /sql, a byte relay for /v1).
//
// Why not @electric-sql/pglite-socket's PGLiteSocketServer: PGlite is one backend, and that
// server interleaves single protocol messages from different connections. With two clients in
// flight, client A's Parse can be followed by client B's Parse before A's Bind, giving
// "unnamed prepared statement does not exist" (reproduced with 10 concurrent pg clients).
// Here a connection owns PGlite from its first message until PGlite reports ReadyForQuery
// with status Idle; others wait in FIFO order. An open transaction therefore blocks other
// connections until it ends, which is the price of a single-connection database.
import { mkdirSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { OutputTracker, splitMessages, SYNC_MESSAGE } from './pg-wire';

export interface PgliteServer {
  host: string;
  port: number;
  db: PGlite;
  close(): Promise<void>;
}

/** FIFO lock with an owner, re-entrant for the owner. */
class OwnerLock {
  private owner: object | null = null;
  private waiters: Array<{ who: object; go: () => void }> = [];
  async acquire(who: object): Promise<void> {
    if (this.owner === who) return;
    if (this.owner === null && this.waiters.length === 0) {
      this.owner = who;
      return;
    }
    await new Promise<void>((go) => this.waiters.push({ who, go }));
  }
  release(who: object): void {
    if (this.owner !== who) return;
    const next = this.waiters.shift();
    this.owner = next ? next.who : null;
    next?.go();
  }
  owns(who: object): boolean {
    return this.owner === who;
  }
  drop(who: object): void {
    // A connection that closes while waiting must not get the lock later.
    this.waiters = this.waiters.filter((w) => w.who !== who);
  }
}

class Session {
  private buf: Buffer = Buffer.alloc(0);
  private started = false;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly out = new OutputTracker();

  constructor(
    private readonly socket: Socket,
    private readonly db: PGlite,
    private readonly lock: OwnerLock,
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
    await this.lock.acquire(this);
    if (this.closed) return this.finish();
    this.out.begin();
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
    }
    if (this.out.idle()) this.lock.release(this);
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

export async function startPgliteServer(dir: string, host = '127.0.0.1'): Promise<PgliteServer> {
  // 'memory://' (and other URL-like schemes) are PGlite storage kinds, not directories.
  if (!/^[a-z]+:\/\//.test(dir)) mkdirSync(dir, { recursive: true });
  // pg_trgm is a contrib extension in PGlite: loaded here so that the same migrations (trigram
  // indexes, drizzle/0007_entities.sql) serve the embedded database and PostgreSQL.
  const db = await PGlite.create(dir, { extensions: { pg_trgm } });
  const lock = new OwnerLock();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    new Session(socket, db, lock);
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
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
    },
  };
}
