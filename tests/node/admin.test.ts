// The admin CLI as an operator runs it (`npm run admin -- ...`), against a fresh database on the
// machine's PostgreSQL and the real Redis.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { createKey } from '../../shared/admin/keys';
import { connect } from '../../scripts/lib/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDatabase } from './template-copy';

const scratch = scratchDatabase('admin_cli');
const DB = scratch.name;
const env = { ...process.env, DATABASE_URL: scratch.url, REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PREFIX: DB };

const TSX = join(import.meta.dirname, '../../node_modules/.bin/tsx');

/** `npm run admin -- ...args` (the CLI through the project's tsx, without npm's own start-up), once it exits. */
function admin(...args: string[]): Promise<{ code: number | null; out: string; err: string; json: () => any }> {
  return new Promise((resolve) => {
    const child = execFile(TSX, ['scripts/admin.ts', ...args], { env, encoding: 'utf8', timeout: 60_000 }, (_, out, err) =>
      resolve({ code: child.exitCode, out, err, json: () => JSON.parse(out) }),
    );
  });
}

beforeAll(async () => {
  Object.assign(process.env, { DATABASE_URL: env.DATABASE_URL, REDIS_URL: env.REDIS_URL });
  await scratch.create();
});

afterAll(() => scratch.drop());

describe('npm run admin', () => {
  let projectId: string;

  it('creates a project and keys, printing each key once', async () => {
    const created = await admin(
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
    const key = await admin('key:create', '--project', projectId, '--countries', 'US', '--json');
    expect(key.code, key.err).toBe(0);
    expect(key.json()).toMatchObject({ key: expect.stringMatching(/^dk_[0-9A-Za-z]{40}$/), countries: ['US'], kind: 'project' });
    const listed = (await admin('key:list', '--project', projectId, '--json')).json();
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(key.json().key);
  });

  it('sets plan, subscription, flags and add-ons; shows usage', async () => {
    const set = await admin(
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
    const usage = await admin('usage', projectId, '--json');
    expect(usage.code, usage.err).toBe(0);
    expect(usage.json()).toMatchObject({
      plan: 'scale',
      month: { used: 0, limit: 500_000 + 200_000 + 50, base: 500_000, addons: 200_050 },
    });
    expect(usage.json().minute).toEqual([expect.objectContaining({ limit: 300, remaining: 300 })]);
  });

  it('refuses bad input with a clear message and exit code 2', async () => {
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
      const run = await admin(...args);
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
    const eleventh = await admin('key:create', '--project', projectId);
    expect(eleventh.code).toBe(2);
    expect(eleventh.err).toMatch(/10 live keys/);
    const [first] = (await admin('key:list', '--project', projectId, '--json')).json();
    expect((await admin('key:revoke', first.id)).code).toBe(0);
    expect((await admin('key:create', '--project', projectId)).code).toBe(0);
  });
});

describe("npm run admin -- ingest:status / ingest:errors (the drop's ledger)", () => {
  it("lists recent runs with state, lines, bad lines, lines/s and lag; a run's bad lines; refuses bad input", async () => {
    const { pool, close } = await connect();
    let runId: string;
    try {
      const { rows } = await pool.query<{ id: string }>(
        `INSERT INTO ingest_runs (object_key, etag, size, event_time, state, format, lines_done, read, loaded, skipped, chunks, started_at, finished_at, created_at)
         VALUES ('crawler/2026/12/01/10.ndjson', 'e1', 1000, now() - interval '30 s', 'done', 'ndjson', 12, 12, 10, 2, 1, now() - interval '28 s', now() - interval '18 s', now() - interval '30 s'),
                ('crawler/2026/12/01/11.ndjson.gz', 'e2', 50, now() - interval '10 s', 'failed', 'gzip', 0, 0, 0, 0, 0, now() - interval '9 s', now() - interval '9 s', now() - interval '10 s'),
                ('crawler/2026/11/01/00.ndjson', 'e3', 10, now() - interval '30 days', 'done', 'ndjson', 1, 1, 1, 0, 1, now() - interval '30 days', now() - interval '30 days', now() - interval '30 days')
         RETURNING id::text`,
      );
      runId = rows[0]!.id;
      await pool.query(`UPDATE ingest_runs SET reason = 'bad gzip: incorrect header check' WHERE etag = 'e2'`);
      await pool.query(
        `INSERT INTO ingest_run_errors (run_id, line, reason) VALUES ($1, 4, 'invalid JSON: x'), ($1, 9, 'unknown type "nope"')`,
        [runId],
      );
    } finally {
      await close();
    }
    const status = await admin('ingest:status', '--json');
    expect(status.code, status.err).toBe(0);
    const runs = status.json();
    expect(runs.map((r: { object_key: string }) => r.object_key)).toEqual([
      'crawler/2026/12/01/11.ndjson.gz',
      'crawler/2026/12/01/10.ndjson',
    ]);
    expect(runs[1]).toMatchObject({
      state: 'done',
      read: 12,
      loaded: 10,
      bad_lines: 2,
      lines_per_second: 1.2,
      lag_seconds: 12,
      wait_seconds: 2,
    });
    expect(runs[0]).toMatchObject({ state: 'failed', reason: 'bad gzip: incorrect header check' });
    const text = await admin('ingest:status', '--since', '60d');
    expect(text.out).toMatch(/run\s+state\s+dropped\s+lines\s+bad\s+lines\/s\s+lag\s+object/);
    expect(text.out).toContain('crawler/2026/11/01/00.ndjson');
    expect(text.out).toContain('(bad gzip: incorrect header check)');
    const errors = await admin('ingest:errors', runId!);
    expect(errors.code, errors.err).toBe(0);
    expect(errors.out).toContain('line 4: invalid JSON: x');
    expect(errors.out).toContain('line 9: unknown type "nope"');
    expect((await admin('ingest:errors', runId!, '--json')).json().errors).toHaveLength(2);
    const refusals = [
      [['ingest:status', '--since', 'yesterday'], /--since takes/],
      [['ingest:errors', 'abc'], /run id/],
      [['ingest:errors', '999999'], /no ingest run 999999/],
    ] as const;
    for (const [args, message] of refusals) {
      const run = await admin(...args);
      expect(run.code, run.err).toBe(2);
      expect(run.err).toMatch(message);
    }
  });
});
