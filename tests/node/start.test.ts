// The README's first command on embedded defaults: `npm start` with no DATABASE_URL/REDIS_URL
// serves the docs and a geo endpoint with a printed demo key, then stops cleanly.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

let child: ChildProcess | undefined;
let dataDir = '';
let output = '';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    if (child?.exitCode !== null) throw new Error(`npm start exited:\n${output.slice(-3_000)}`);
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 1_000));
  }
  throw new Error(`not ready:\n${output.slice(-3_000)}`);
}

afterAll(async () => {
  if (child?.pid) process.kill(-child.pid, 'SIGTERM');
  await new Promise((r) => setTimeout(r, 1_000));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('npm start on embedded defaults', () => {
  it('serves /openapi.json, /docs and /v1/geo/regions with a demo key within 90 s', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'discovery-start-'));
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir };
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    child = spawn('npm', ['start'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (b) => (output += b));
    child.stderr!.on('data', (b) => (output += b));
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/openapi.json`, Date.now() + 90_000);

    expect(output).toContain('postgres: pglite, redis: memory');
    const keys = JSON.parse(await readFile(join(dataDir, 'demo-keys.json'), 'utf8')) as { name: string; key: string }[];
    expect(keys.map((k) => k.name)).toEqual(['full', 'restricted', 'internal', 'other-project']);
    for (const { key } of keys) expect(output).toContain(key);

    expect((await fetch(`${base}/docs`)).status).toBe(200);
    const full = keys.find((k) => k.name === 'full')!.key;
    const reply = await fetch(`${base}/v1/geo/regions?with_stats=true`, { headers: { 'X-API-Key': full } });
    expect(reply.status).toBe(200);
    const body = (await reply.json()) as { regions: { alpha_2: string; stats?: { total_discover_impressions_per_day: number } }[]; total: number };
    expect(body.total).toBeGreaterThanOrEqual(5);
    expect(body.regions.some((r) => (r.stats?.total_discover_impressions_per_day ?? 0) > 0)).toBe(true);
  }, 150_000);
});
