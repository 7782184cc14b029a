// The README's first command on embedded defaults: `npm start` with no DATABASE_URL/REDIS_URL
// serves the docs and a geo endpoint with a printed demo key, then stops cleanly.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbedded, type StartedApi } from './support/npm-start';

let api: StartedApi | undefined;
let dataDir = '';

afterAll(async () => {
  api?.stop();
  await new Promise((r) => setTimeout(r, 1_000));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('npm start on embedded defaults', () => {
  it('serves /openapi.json, /docs and /v1/geo/regions with a demo key within 90 s', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'discovery-start-'));
    api = await startEmbedded(dataDir, {}, 90_000);
    const { base } = api;
    const output = api.output();

    expect(output).toContain('postgres: pglite, redis: memory');
    const keys = JSON.parse(await readFile(join(dataDir, 'demo-keys.json'), 'utf8')) as { name: string; key: string }[];
    expect(keys.map((k) => k.name)).toEqual(['full', 'restricted', 'internal', 'other-project']);
    for (const { key } of keys) expect(output).toContain(key);

    expect((await fetch(`${base}/docs`)).status).toBe(200);
    const full = keys.find((k) => k.name === 'full')!.key;
    const reply = await fetch(`${base}/v1/geo/regions?with_stats=true`, { headers: { 'X-API-Key': full } });
    expect(reply.status).toBe(200);
    const body = (await reply.json()) as {
      regions: { alpha_2: string; stats?: { total_discover_impressions_per_day: number } }[];
      total: number;
    };
    expect(body.total).toBeGreaterThanOrEqual(5);
    expect(body.regions.some((r) => (r.stats?.total_discover_impressions_per_day ?? 0) > 0)).toBe(true);
  }, 150_000);
});
