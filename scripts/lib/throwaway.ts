// A throwaway PostgreSQL 15 cluster (initdb in a temp dir, its own port) and redis-server, with
// `npm start` running against them (scripts/lib/npm-start.ts): what the restart test and the chaos bench
// kill and bring back.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type NpmStart, startNpmStart } from './npm-start';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** PostgreSQL refuses to run as root: as root, its tools run as the `postgres` user. */
const asRoot = process.getuid?.() === 0;
function pgTool(tool: string, args: string[]) {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', tool, ...args]] : [tool, args];
  execFileSync(cmd, argv, { stdio: ['ignore', 'ignore', 'inherit'] });
}

export interface ThrowawayStack {
  base: string;
  /** DATABASE_URL and REDIS_URL of the throwaway services (for the admin CLI). */
  env: { DATABASE_URL: string; REDIS_URL: string };
  /** The demo key named `name` (`full`, `restricted`, ...). */
  key(name: string): string;
  /** Everything npm start printed so far. */
  output(): string;
  running(): boolean;
  stopPostgres(): void;
  startPostgres(): void;
  stopRedis(): Promise<void>;
  startRedis(): Promise<void>;
  /** Stops everything and removes the temp dir. */
  close(): Promise<void>;
}

/** Starts the cluster, redis-server and `npm start` (extra `env` for it), and waits until the demo is served. */
export async function startThrowaway(prefix: string, env: Record<string, string> = {}, readyWithinMs = 200_000): Promise<ThrowawayStack> {
  const dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
  const [pgPort, redisPort, apiPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const pgData = join(dir, 'pg');
  await mkdir(pgData, { mode: 0o700 });
  if (asRoot) {
    await chmod(dir, 0o755);
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    await chown(pgData, uid, gid);
  }
  const pgCtl = (...args: string[]) => pgTool('pg_ctl', ['-D', pgData, '-s', ...args]);
  const startPostgres = () =>
    pgCtl('-w', '-l', join(pgData, 'server.log'), '-o', `-p ${pgPort} -k ${pgData} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start');
  let redis: ChildProcess | undefined;
  const startRedis = async () => {
    redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    for (let i = 0; i < 50; i++) {
      try {
        execFileSync('redis-cli', ['-p', String(redisPort), 'ping'], { stdio: 'ignore' });
        return;
      } catch {
        await sleep(100);
      }
    }
    throw new Error('redis-server did not start');
  };
  const stopRedis = async () => {
    const child = redis;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };

  pgTool('initdb', ['-D', pgData, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  startPostgres();
  await startRedis();
  const services = { DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/postgres`, REDIS_URL: `redis://127.0.0.1:${redisPort}` };
  const close = async (start?: { stop(): Promise<void> }) => {
    await start?.stop();
    await sleep(1_500);
    await stopRedis();
    try {
      pgCtl('-m', 'immediate', 'stop');
    } catch {}
    await rm(dir, { recursive: true, force: true });
  };
  let start: NpmStart;
  try {
    start = await startNpmStart({ dataDir: join(dir, 'data'), port: apiPort, env: { ...services, ...env }, readyWithinMs });
  } catch (err) {
    await close();
    throw err;
  }
  return {
    base: start.base,
    env: services,
    key: start.key,
    output: start.output,
    running: start.running,
    stopPostgres: () => pgCtl('-m', 'immediate', 'stop'),
    startPostgres,
    stopRedis,
    startRedis,
    close: () => close(start),
  };
}
