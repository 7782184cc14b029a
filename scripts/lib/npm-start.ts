// `npm start` as a child process, for the benches and tests that drive the product's own stack (gateway
// included): started on a port and DATA_DIR, ready once it serves /openapi.json, its demo keys and
// gateway read from DATA_DIR, stopped with everything it spawned.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve as resolvePath } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface NpmStartOptions {
  /** DATA_DIR of the run (absolute, or relative to the repository). */
  dataDir: string;
  /** PORT; default a free one. */
  port?: number;
  /** Set on top of this process' environment. */
  env?: Record<string, string>;
  /** Embedded defaults (PGlite, the in-process Redis): DATABASE_URL and REDIS_URL are not passed on. */
  embedded?: boolean;
  /** Give up (stop it and throw with the end of its output) when not answering by then; default 300 s. */
  readyWithinMs?: number;
  /** Each chunk npm start writes to stdout or stderr, as it comes. */
  onOutput?: (chunk: Buffer) => void;
  /** Also copy npm start's stderr to this process' stderr. */
  echoStderr?: boolean;
}

export interface NpmStart {
  base: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  /** Everything npm start printed so far. */
  output(): string;
  running(): boolean;
  /** The demo key named `name` (`full`, `restricted`, `internal`, ...: DATA_DIR/demo-keys.json). */
  key(name: string): string;
  /** npm start's gateway (DATA_DIR/gateway.json). */
  gateway(): { neonHttpUrl: string; upstashUrl: string; upstashToken: string };
  /** SIGTERM to npm start and everything it spawned; with `graceMs`, waits that long for it to exit, then SIGKILL. */
  stop(graceMs?: number): Promise<void>;
}

const BANNER = 'Discovery analytics API on';

/** Spawns `npm start` and waits until it prints its banner and /openapi.json answers. */
export async function startNpmStart(options: NpmStartOptions): Promise<NpmStart> {
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir;
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir, ...options.env };
  if (options.embedded) {
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
  }
  const child = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const onData = (b: Buffer) => {
    output += b;
    options.onOutput?.(b);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', (b: Buffer) => {
    onData(b);
    if (options.echoStderr) process.stderr.write(b);
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async (graceMs = 0) => {
    if (!child.pid || !running()) return;
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(-child.pid, 'SIGTERM');
    if (graceMs <= 0) return;
    await Promise.race([exited, new Promise((r) => setTimeout(r, graceMs))]);
    if (running()) process.kill(-child.pid, 'SIGKILL');
  };
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyWithinMs ?? 300_000);
  for (;;) {
    if (!running()) throw new Error(`npm start exited:\n${output.slice(-3_000)}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`npm start not ready:\n${output.slice(-3_000)}`);
    }
    const ready =
      output.includes(BANNER) &&
      (await fetch(`${base}/openapi.json`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      ));
    if (ready) break;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const dir = resolvePath(ROOT, dataDir);
  const keys = JSON.parse(readFileSync(join(dir, 'demo-keys.json'), 'utf8')) as { name: string; key: string }[];
  return {
    base,
    port,
    dataDir,
    child,
    output: () => output,
    running,
    key: (name) => {
      const found = keys.find((k) => k.name === name);
      if (!found) throw new Error(`no demo key named ${name}`);
      return found.key;
    },
    gateway: () => JSON.parse(readFileSync(join(dir, 'gateway.json'), 'utf8')),
    stop,
  };
}
