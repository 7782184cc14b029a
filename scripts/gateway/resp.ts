// Minimal RESP2 client over node:net (the redis/ioredis packages are not dependencies).
// Each connection pipelines: commands are written in order and replies matched FIFO.
// A batch passed to send() is written with one socket write, so MULTI ... EXEC sent as one
// batch cannot interleave with other callers' commands on that socket.
import { connect, type Socket } from 'node:net';
import { ReplyError, Status, type Reply } from './redis-types';

export function encodeCommand(args: Array<string | Buffer>): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const a of args) {
    const b = typeof a === 'string' ? Buffer.from(a, 'utf8') : a;
    parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/** Parses one reply at `off`; undefined when the buffer does not yet hold all of it. */
export function parseReply(buf: Buffer, off: number): { value: Reply; next: number } | undefined {
  const eol = buf.indexOf('\r\n', off);
  if (eol < 0) return undefined;
  const type = String.fromCharCode(buf[off]);
  const line = buf.toString('utf8', off + 1, eol);
  const after = eol + 2;
  switch (type) {
    case '+':
      return { value: new Status(line), next: after };
    case '-':
      return { value: new ReplyError(line), next: after };
    case ':':
      return { value: Number(line), next: after };
    case '$': {
      const len = Number(line);
      if (len < 0) return { value: null, next: after };
      if (buf.length < after + len + 2) return undefined;
      return { value: Buffer.from(buf.subarray(after, after + len)), next: after + len + 2 };
    }
    case '*': {
      const n = Number(line);
      if (n < 0) return { value: null, next: after };
      const items: Reply[] = [];
      let pos = after;
      for (let i = 0; i < n; i++) {
        const r = parseReply(buf, pos);
        if (!r) return undefined;
        items.push(r.value);
        pos = r.next;
      }
      return { value: items, next: pos };
    }
    default:
      throw new Error(`RESP: unexpected reply type ${JSON.stringify(type)}`);
  }
}

export interface RedisAddress {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db: number;
}

export function addressFromUrl(url: string): RedisAddress {
  const u = new URL(url);
  if (u.protocol !== 'redis:') throw new Error(`REDIS_URL must be redis://..., got ${u.protocol}`);
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: Number(u.pathname.replace(/^\//, '') || 0),
  };
}

type Waiter = { resolve: (r: Reply) => void; reject: (e: Error) => void };

export class RespConnection {
  private readonly socket: Socket;
  private readonly waiters: Waiter[] = [];
  private buf: Buffer = Buffer.alloc(0);
  dead: Error | null = null;
  readonly ready: Promise<void>;

  constructor(addr: RedisAddress) {
    this.socket = connect({ host: addr.host, port: addr.port, noDelay: true });
    this.socket.on('data', (d) => this.onData(d));
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => this.fail(new Error('redis connection closed')));
    const init: string[][] = [];
    if (addr.password !== undefined) {
      init.push(addr.username ? ['AUTH', addr.username, addr.password] : ['AUTH', addr.password]);
    }
    if (addr.db) init.push(['SELECT', String(addr.db)]);
    this.ready = (init.length ? this.send(init) : Promise.resolve([])).then((replies) => {
      const bad = replies.find((r) => r instanceof ReplyError);
      if (bad) {
        this.fail(bad as ReplyError);
        throw bad;
      }
    });
  }

  get pending(): number {
    return this.waiters.length;
  }

  send(cmds: string[][]): Promise<Reply[]> {
    if (this.dead) return Promise.reject(this.dead);
    const all = cmds.map(() => new Promise<Reply>((resolve, reject) => this.waiters.push({ resolve, reject })));
    this.socket.write(Buffer.concat(cmds.map(encodeCommand)));
    return Promise.all(all);
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    let off = 0;
    while (off < this.buf.length) {
      const r = parseReply(this.buf, off);
      if (!r) break;
      off = r.next;
      this.waiters.shift()?.resolve(r.value);
    }
    this.buf = off === this.buf.length ? Buffer.alloc(0) : this.buf.subarray(off);
  }

  private fail(err: Error): void {
    if (!this.dead) this.dead = err;
    for (const w of this.waiters.splice(0)) w.reject(err);
    this.socket.destroy();
  }

  close(): void {
    this.fail(new Error('redis connection closed by gateway'));
  }
}

/** A few connections; each call goes to the least busy one. Dead ones are replaced lazily. */
export class RespPool {
  private readonly conns: Array<RespConnection | undefined>;

  constructor(
    private readonly addr: RedisAddress,
    size = 4,
  ) {
    this.conns = new Array(size).fill(undefined);
  }

  private pick(): RespConnection {
    let best = -1;
    for (let i = 0; i < this.conns.length; i++) {
      const c = this.conns[i];
      if (!c || c.dead) {
        this.conns[i] = new RespConnection(this.addr);
        return this.conns[i]!;
      }
      if (best < 0 || c.pending < this.conns[best]!.pending) best = i;
    }
    return this.conns[best]!;
  }

  async send(cmds: string[][]): Promise<Reply[]> {
    const c = this.pick();
    await c.ready;
    return c.send(cmds);
  }

  close(): void {
    for (const c of this.conns) c?.close();
  }
}
