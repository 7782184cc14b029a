// Restart survival (issue 13): `npm start` on a throwaway PostgreSQL 15 cluster (initdb in a temp
// dir, its own port) and a throwaway redis-server. Restarting PostgreSQL (`pg_ctl -m immediate
// stop`, then start) and then Redis under the running stack: during the outage keyed requests
// answer 503 + Retry-After, npm start stays up, and within 5 s of the dependency being back
// requests succeed again, with nothing restarted.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/npm-start';

let dir = '';
let pgPort = 0;
let redisPort = 0;
let apiPort = 0;
let start: ChildProcess | undefined;
let redis: ChildProcess | undefined;
let output = '';
let key = '';
let metricsPath = '';


const pgData = () => join(dir, 'pg');
/** PostgreSQL refuses to run as root: as root, its tools run as the `postgres` user. */
const asRoot = process.getuid?.() === 0;
function pgTool(tool: string, args: string[]) {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', tool, ...args]] : [tool, args];
  execFileSync(cmd, argv, { stdio: ['ignore', 'ignore', 'inherit'] });
}
const pgCtl = (...args: string[]) => pgTool('pg_ctl', ['-D', pgData(), '-s', ...args]);
const startPostgres = () =>
  pgCtl('-w', '-l', join(pgData(), 'server.log'), '-o', `-p ${pgPort} -k ${pgData()} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start');

async function startRedis(): Promise<void> {
  redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 50; i++) {
    try {
      execFileSync('redis-cli', ['-p', String(redisPort), 'ping'], { stdio: 'ignore' });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('redis-server did not start');
}
async function stopRedis(): Promise<void> {
  const child = redis;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

async function get(path: string) {
  try {
    const res = await fetch(`http://127.0.0.1:${apiPort}${path}`, { headers: { 'X-API-Key': key }, signal: AbortSignal.timeout(5_000) });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), cacheStatus: res.headers.get('cache-status'), text: await res.text() };
  } catch (err) {
    return { status: 0, retryAfter: null, cacheStatus: null, text: (err as Error).message };
  }
}

/** Polls until `path` answers 200; returns the milliseconds it took. */
async function recovers(path: string, budgetMs: number): Promise<number> {
  const t0 = Date.now();
  let last = await get(path);
  while (last.status !== 200 && Date.now() - t0 < budgetMs) {
    await new Promise((r) => setTimeout(r, 100));
    last = await get(path);
  }
  expect(last.status, `${path} after the restart: ${last.text.slice(0, 300)}\n${output.slice(-2_000)}`).toBe(200);
  return Date.now() - t0;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'discovery-restart-'));
  [pgPort, redisPort, apiPort] = await Promise.all([freePort(), freePort(), freePort()]);
  await mkdir(pgData(), { mode: 0o700 });
  if (asRoot) {
    await chmod(dir, 0o755);
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    await chown(pgData(), uid, gid);
  }
  pgTool('initdb', ['-D', pgData(), '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  startPostgres();
  await startRedis();
  start = spawn('npm', ['start'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env, PORT: String(apiPort), DATA_DIR: join(dir, 'data'),
      DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/postgres`, REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    },
  });
  start.stdout!.on('data', (b) => (output += b));
  start.stderr!.on('data', (b) => (output += b));
  const deadline = Date.now() + 200_000;
  while (Date.now() < deadline) {
    if (start.exitCode !== null) throw new Error(`npm start exited:\n${output.slice(-3_000)}`);
    if (output.includes('Discovery analytics API on') && (await get('/openapi.json')).status === 200) break;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const keys = JSON.parse(await readFile(join(dir, 'data', 'demo-keys.json'), 'utf8')) as { name: string; key: string }[];
  key = keys.find((k) => k.name === 'full')!.key;
  const lists = JSON.parse((await get('/v1/tracking/lists')).text) as { lists: { id: string; kind: string }[] };
  metricsPath = `/v1/tracking/lists/${lists.lists.find((l) => l.kind === 'publisher')!.id}/metrics?period=24h`;
}, 240_000);

afterAll(async () => {
  if (start?.pid && start.exitCode === null) process.kill(-start.pid, 'SIGTERM');
  await new Promise((r) => setTimeout(r, 1_500));
  await stopRedis();
  try {
    pgCtl('-m', 'immediate', 'stop');
  } catch {}
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('npm start when PostgreSQL or Redis restarts', () => {
  it('PostgreSQL restart: stale copies or 503 + Retry-After while down, 200 within 5 s after, npm start still up', async () => {
    const before = await get('/v1/articles?limit=5');
    expect(before.status).toBe(200);
    pgCtl('-m', 'immediate', 'stop');
    // Answered a moment ago by this key: its last good copy, marked stale (shared/stale).
    const stale = await get('/v1/articles?limit=5');
    expect(stale.status, stale.text).toBe(200);
    expect(stale.text).toBe(before.text);
    expect(stale.cacheStatus).toMatch(/fwd=stale/);
    // Never answered: 503.
    const down = await get('/v1/articles?limit=5&offset=1');
    expect(down.status, down.text).toBe(503);
    expect(Number(down.retryAfter)).toBeGreaterThan(0);
    expect(down.text).toContain('detail');
    // Long enough for every idle connection of npm start to notice the dead server.
    await new Promise((r) => setTimeout(r, 2_000));
    startPostgres();
    const ms = await recovers('/v1/articles?limit=5&offset=2', 5_000);
    console.log(`PostgreSQL: requests succeed ${ms} ms after it is back`);
    expect(start!.exitCode, output.slice(-2_000)).toBeNull();
    expect(output).not.toMatch(/fatal|Unhandled 'error' event/);
  }, 60_000);

  it('Redis restart: 200 (computed without the cache) or 503 + Retry-After while down, cached again within 5 s after, npm start still up', async () => {
    expect((await get(metricsPath)).status).toBe(200);
    await stopRedis();
    const down = await get(`${metricsPath}&lang=en`);
    if (down.status !== 200) {
      expect(down.status, down.text).toBe(503);
      expect(Number(down.retryAfter)).toBeGreaterThan(0);
    }
    await new Promise((r) => setTimeout(r, 1_000));
    await startRedis();
    const ms = await recovers(`${metricsPath}&lang=de`, 5_000);
    // Redis itself is in use again: the answer is now cached.
    const again = await fetch(`http://127.0.0.1:${apiPort}${metricsPath}&lang=de`, { headers: { 'X-API-Key': key } });
    expect(again.headers.get('x-aggregate-cache')).toBe('hit');
    console.log(`Redis: requests succeed ${ms} ms after it is back`);
    expect(start!.exitCode, output.slice(-2_000)).toBeNull();
  }, 60_000);
});
