// The admin CLI as an operator runs it (`npm run admin -- ...`), against a fresh database on the
// machine's PostgreSQL and the real Redis.
import { spawnSync } from 'node:child_process';
import { createKey } from '../../shared/admin/keys';
import { connect } from '../../scripts/lib/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDatabase } from './template-copy';

const scratch = scratchDatabase('admin_cli');
const DB = scratch.name;
const env = { ...process.env, DATABASE_URL: scratch.url, REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PREFIX: DB };

function admin(...args: string[]) {
  const run = spawnSync('npx', ['tsx', 'scripts/admin.ts', ...args], { env, encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, out: run.stdout, err: run.stderr, json: () => JSON.parse(run.stdout) };
}

beforeAll(async () => {
  Object.assign(process.env, { DATABASE_URL: env.DATABASE_URL, REDIS_URL: env.REDIS_URL });
  await scratch.create();
});

afterAll(() => scratch.drop());

describe('npm run admin', () => {
  let projectId: string;

  it('creates a project and keys, printing each key once', () => {
    const created = admin(
      'project:create',
      '--name',
      'Acme',
      '--plan',
      'grow',
      '--countries',
      'us,GB',
      '--categories',
      '/News,/Sports',
      '--json',
    );
    expect(created.code, created.err).toBe(0);
    const project = created.json();
    expect(project).toMatchObject({ name: 'Acme', plan: 'grow', countries: ['US', 'GB'], categories: ['/News', '/Sports'] });
    projectId = project.id;
    const key = admin('key:create', '--project', projectId, '--countries', 'US', '--json');
    expect(key.code, key.err).toBe(0);
    expect(key.json()).toMatchObject({ key: expect.stringMatching(/^dk_[0-9A-Za-z]{40}$/), countries: ['US'], kind: 'project' });
    const listed = admin('key:list', '--project', projectId, '--json').json();
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(key.json().key);
  });

  it('sets plan, subscription, flags and add-ons; shows usage', () => {
    const set = admin(
      'project:set',
      projectId,
      '--plan',
      'scale',
      '--subscription',
      'past_due',
      '--api',
      'off',
      '--addons',
      'request_packs=2,extra_entities=5',
      '--json',
    );
    expect(set.code, set.err).toBe(0);
    expect(set.json()).toMatchObject({
      plan: 'scale',
      subscriptionStatus: 'past_due',
      apiEnabled: false,
      addons: { request_packs: 2, extra_entities: 5 },
    });
    // Settings the command does not name are kept.
    expect(set.json()).toMatchObject({ countries: ['US', 'GB'], categories: ['/News', '/Sports'], mcpEnabled: true });
    const usage = admin('usage', projectId, '--json');
    expect(usage.code, usage.err).toBe(0);
    expect(usage.json()).toMatchObject({
      plan: 'scale',
      month: { used: 0, limit: 500_000 + 200_000 + 50, base: 500_000, addons: 200_050 },
    });
    expect(usage.json().minute).toEqual([expect.objectContaining({ limit: 300, remaining: 300 })]);
  });

  it('refuses bad input with a clear message and exit code 2', () => {
    const cases: [string[], RegExp][] = [
      [['project:create', '--name', 'X', '--plan', 'gold'], /plan/],
      [['project:create', '--plan', 'grow'], /name/],
      [['project:create', '--name', 'X', '--plan', 'grow', '--countries', 'USA'], /alpha-2/],
      [['key:create', '--project', projectId, '--countries', 'FR'], /not markets of project/],
      [['key:revoke', '00000000-0000-4000-8000-000000000000'], /no live key/],
      [['project:set', projectId, '--addons', 'gifts=3'], /--addons takes/],
      [['project:show'], /missing <project_id>/],
    ];
    for (const [args, message] of cases) {
      const run = admin(...args);
      expect(run.code, `${args.join(' ')}: ${run.err}`).toBe(2);
      expect(run.err).toMatch(message);
    }
  });

  it('allows at most 10 live keys per project; revoking frees a slot', async () => {
    // Keys 2-10 through the module the CLI runs (spawning nine CLIs would only add time).
    const { db, close } = await connect();
    try {
      for (let i = 2; i <= 10; i++) await createKey(db, { projectId, name: `k${i}` });
    } finally {
      await close();
    }
    const eleventh = admin('key:create', '--project', projectId);
    expect(eleventh.code).toBe(2);
    expect(eleventh.err).toMatch(/10 live keys/);
    const [first] = admin('key:list', '--project', projectId, '--json').json();
    expect(admin('key:revoke', first.id).code).toBe(0);
    expect(admin('key:create', '--project', projectId).code).toBe(0);
  });
});
