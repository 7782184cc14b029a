// The data path as an operator runs it: `npm run generate | npm run ingest` on an empty database,
// again with zero changes, a file with bad lines, then the demo's live simulation on top.
import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rollupsDiffer } from '../../scripts/bench/rollups-exact';
import { liveStep, topUp } from '../../scripts/demo/live';
import { migrate } from '../../scripts/lib/migrations';
import { DEFERRED_FOREIGN_KEYS, DEFERRED_INDEXES, deferIndexes } from '../../shared/ingest/bulk/deferred-indexes';
import { scratchDatabase } from './template-copy';

const SERVER = inject('adminDatabaseUrl').replace(/\/[^/]*$/, '');
const scratch = scratchDatabase('ingest_cli');
const DB = scratch.name;
const env = { ...process.env, DATABASE_URL: scratch.url };
const NOW = '2026-11-20T12:00:00Z';

/** The project's tsx (a spawn through npx would add npm's own start-up to every run). */
const TSX = join(import.meta.dirname, '../../node_modules/.bin/tsx');
const sh = (command: string) => spawnSync('bash', ['-c', command], { env, encoding: 'utf8', timeout: 180_000 });
const GENERATE = `${TSX} scripts/generate/index.ts --scale test --seed 7 --now ${NOW}`;

async function withClient<T>(database: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: `${SERVER}/${database}` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
const count = (table: string) =>
  withClient(DB, async (c) => (await c.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number);

/**
 * Every index and constraint of the schema as the catalog defines it (a NOT VALID constraint differs).
 * Partitions (dim_hours' days) are left out: each holds its parent's key, and the days differ by data.
 */
const schemaOf = (database: string) =>
  withClient(
    database,
    async (c) =>
      (
        await c.query(
          `SELECT tablename AS table, indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = 'public'
             AND tablename NOT IN (SELECT relname FROM pg_class WHERE relispartition)
           UNION ALL
           SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) || CASE WHEN convalidated THEN '' ELSE ' NOT VALID' END
           FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conrelid NOT IN (SELECT oid FROM pg_class WHERE relispartition)
           ORDER BY 1, 2, 3`,
        )
      ).rows,
  );

async function ndjsonFile(name: string, records: object[]): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'ingest-')), name);
  await writeFile(file, records.map((r) => JSON.stringify(r)).join('\n'));
  return file;
}

beforeAll(() => scratch.create());

afterAll(() => scratch.drop());

describe('generate | ingest', () => {
  it('loads an empty database, then reports zero changes on the identical second run', () => {
    const first = sh(`${GENERATE} | ${TSX} scripts/ingest.ts --json`);
    expect(first.status, first.stderr).toBe(0);
    const summary = JSON.parse(first.stdout);
    expect(summary.skipped).toBe(0);
    expect(summary.byType.observation.inserted).toBeGreaterThan(1_000);
    const second = sh(`${GENERATE} | ${TSX} scripts/ingest.ts`);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toContain('rows changed: 0 (already up to date)');
  });

  it('leaves every index and constraint of the migrated schema after a bulk load', async () => {
    // The bulk load dropped the secondary indexes and foreign keys its batches never read and
    // recreated them at its end (docs/INGEST.md "Bulk loads"): the same definitions as migrated.
    expect(await schemaOf(DB)).toEqual(await schemaOf(inject('templateDatabase')));
    expect(await count('deferred_indexes')).toBe(0);
  });

  it('analyzes the tables of the recreated indexes once, when they are recreated', async () => {
    // Recreating them analyzes their tables before the rebuild reads them; the run's closing ANALYZE
    // of what it changed skips them (two runs above, the second with nothing to change).
    const tables = ['observations', 'articles', 'url_profiles', 'article_entities', 'article_categories'];
    const counts = () =>
      withClient(DB, async (c) => {
        const { rows } = await c.query(
          `SELECT relname, analyze_count::int AS n FROM pg_stat_user_tables WHERE relname = ANY($1) ORDER BY relname`,
          [tables],
        );
        return Object.fromEntries(rows.map((r) => [r.relname, r.n]));
      });
    // A backend's statistics reach the shared view when it goes idle or exits: wait for the CLI's.
    let seen = await counts();
    for (let i = 0; i < 20 && Object.values(seen).some((n) => n === 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      seen = await counts();
    }
    expect(seen).toEqual(Object.fromEntries(tables.sort().map((t) => [t, 1])));
  });

  it("a small run later analyzes no table it changed by less than autovacuum's threshold (50 rows and 10%)", async () => {
    const stats = () =>
      withClient(DB, async (c) => {
        const { rows } = await c.query(
          `SELECT analyze_count::int AS analyzed, n_mod_since_analyze::int AS changed FROM pg_stat_user_tables WHERE relname = 'observations'`,
        );
        return rows[0] as { analyzed: number; changed: number };
      });
    // Statistics taken now: what the run changes is all that changed since.
    await withClient(DB, (c) => c.query('ANALYZE observations'));
    let before = await stats();
    for (let i = 0; i < 20 && before.changed !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      before = await stats();
    }
    const hours = await withClient(
      DB,
      async (c) =>
        (await c.query(`SELECT url_id::text, country, language FROM url_profiles ORDER BY url_id, country, language LIMIT 3`)).rows,
    );
    const file = await ndjsonFile(
      'three-hours.ndjson',
      hours.map((p, i) => ({ type: 'observation', ...p, hour: '2026-11-20T09:00:00Z', impressions: 100 + i, position: 2.5 })),
    );
    const run = sh(`${TSX} scripts/ingest.ts --json < ${file}`);
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).changed).toBeGreaterThan(0);
    let after = await stats();
    for (let i = 0; i < 20 && after.changed === before.changed; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await stats();
    }
    expect(after.changed, 'the run changed observations').toBeGreaterThan(before.changed);
    expect(after.analyzed, 'and left their statistics, still right, alone').toBe(before.analyzed);
  });

  it("leaves the feed windows built after a bulk load, ending at the run's hour", async () => {
    // The first load above ran in bulk mode: its batches set the windows back, and its end builds them,
    // which a feed request's statement timeout could not do on a large load (docs/DATA.md "Feed windows").
    const hourEnd = Math.ceil(Date.now() / 3_600_000) * 3_600_000;
    const state = await withClient(
      DB,
      async (c) => (await c.query(`SELECT extract(epoch FROM as_of)::float8 * 1000 AS ms FROM feed_windows_state`)).rows,
    );
    expect([hourEnd - 3_600_000, hourEnd]).toContain(Number(state[0].ms));
    const profiles = await count('url_profiles');
    expect(profiles).toBeGreaterThan(0);
    expect(await count('profile_windows')).toBe(profiles);
  });

  it('rebuilds the roll-ups of a bulk load on two connections exactly as one transaction would', async () => {
    // The CLI gave the rebuild a second connection (a plain PostgreSQL URL): the dimension series on
    // one, everything else on the other (docs/INGEST.md "Bulk loads").
    expect(await count('dim_hours')).toBeGreaterThan(0);
    expect(await count('dim_activity')).toBeGreaterThan(0);
    expect(await withClient(DB, rollupsDiffer)).toEqual([]);
  });

  it('loads the good lines of a file with bad ones and exits 1 naming their lines', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ingest-'));
    const file = join(dir, 'mixed.ndjson');
    await writeFile(
      file,
      [
        JSON.stringify({ type: 'language', code: 'xx', name: 'Testish' }),
        '{not json',
        JSON.stringify({
          type: 'observation',
          url_id: '00000000-0000-4000-8000-000000000000',
          country: 'US',
          language: 'en',
          hour: NOW,
          impressions: 3,
          position: 1,
        }),
        JSON.stringify({ type: 'unicorn' }),
        JSON.stringify({ type: 'language', code: 'yy', name: 'Otherish' }),
      ].join('\n'),
    );
    const run = sh(`${TSX} scripts/ingest.ts ${file}`);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/line 2\b/);
    expect(run.stdout).toMatch(/line 3\b/);
    expect(run.stdout).toMatch(/line 4\b/);
    const codes = await withClient(DB, async (c) =>
      (await c.query(`SELECT code FROM languages WHERE code IN ('xx', 'yy') ORDER BY code`)).rows.map((r) => r.code),
    );
    expect(codes).toEqual(['xx', 'yy']);
  });
});

describe('live simulation', () => {
  it('tops up missed hours and adds first-seen URLs and impressions every step', async () => {
    const articlesBefore = await count('articles');
    const later = new Date(Date.parse(NOW) + 5 * 3_600_000 + 10 * 60_000);
    const hours = await withClient(DB, (c) => topUp(c, later));
    expect(hours).toBeGreaterThanOrEqual(5);
    expect(await count('articles')).toBeGreaterThan(articlesBefore);
    const [{ n }] = await withClient(
      DB,
      async (c) =>
        (await c.query(`SELECT count(*)::int AS n FROM observations WHERE hour = date_trunc('hour', $1::timestamptz)`, [later])).rows,
    );
    expect(n).toBeGreaterThan(0);
    const step = await withClient(DB, (c) => liveStep(c, new Date(later.getTime() + 60_000), 1, 20));
    expect(step.skipped, JSON.stringify(step.errors)).toBe(0);
    expect(step.byType.article?.inserted).toBe(1);
    // The same minute again is the same data: nothing changes.
    const again = await withClient(DB, (c) => liveStep(c, new Date(later.getTime() + 60_000), 1, 20));
    expect(again.byType.article?.inserted ?? 0).toBe(0);
  });
});

describe('deferred indexes', () => {
  it('come back at the next ingest run, and at db:migrate, after a bulk load that died', async () => {
    const migrated = await schemaOf(inject('templateDatabase'));
    // A bulk load's first step without its end: the objects are dropped and recorded, nothing recreates them.
    const dieMidway = async () => {
      await withClient(DB, deferIndexes);
      const recorded = await withClient(DB, async (c) => (await c.query('SELECT name FROM deferred_indexes')).rows.map((r) => r.name));
      expect(recorded.sort()).toEqual([...DEFERRED_INDEXES, ...DEFERRED_FOREIGN_KEYS].sort());
      expect(await schemaOf(DB)).not.toEqual(migrated);
    };

    await dieMidway();
    // The database holds observations: this run keeps the roll-ups per batch, and restores first.
    const run = sh(`${TSX} scripts/ingest.ts ${await ndjsonFile('one.ndjson', [{ type: 'language', code: 'zz', name: 'Zedish' }])}`);
    expect(run.status, run.stderr).toBe(0);
    expect(await schemaOf(DB)).toEqual(migrated);
    expect(await count('deferred_indexes')).toBe(0);

    await dieMidway();
    expect(await withClient(DB, (c) => migrate(c))).toEqual([]);
    expect(await schemaOf(DB)).toEqual(migrated);
    expect(await count('deferred_indexes')).toBe(0);
  });

  it('still report an observation of an unknown article as a bad line in a bulk load, and load the good ones', async () => {
    const [{ id }] = await withClient(DB, async (c) => (await c.query(`SELECT id::text AS id FROM articles ORDER BY id LIMIT 1`)).rows);
    const hour = '2026-11-20T11:00:00Z';
    const observation = { type: 'observation', country: 'US', language: 'en', hour, position: 2 };
    const file = await ndjsonFile('bulk.ndjson', [
      { ...observation, url_id: id, impressions: 4242 },
      { ...observation, url_id: '00000000-0000-4000-8000-0000000000ff', impressions: 7 },
    ]);
    // Without the foreign key on observations, the precheck alone refuses the line, as it did before.
    const run = sh(`${TSX} scripts/ingest.ts ${file} --rebuild-rollups --json`);
    expect(run.status, run.stderr).toBe(1);
    const summary = JSON.parse(run.stdout);
    expect(summary.loaded).toBe(1);
    expect(summary.errors).toEqual([{ line: 2, reason: expect.stringContaining('unknown url_id 00000000-0000-4000-8000-0000000000ff') }]);
    const stored = await withClient(
      DB,
      async (c) =>
        (
          await c.query(`SELECT impressions FROM observations WHERE url_id = $1 AND country = 'US' AND language = 'en' AND hour = $2`, [
            id,
            hour,
          ])
        ).rows,
    );
    expect(stored).toEqual([{ impressions: 4242 }]);
    expect(await schemaOf(DB)).toEqual(await schemaOf(inject('templateDatabase')));
  });
});

describe('a database without the schema', () => {
  const BARE = `${DB}_bare`;
  afterAll(() => withClient('postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${BARE} WITH (FORCE)`)));

  it('is migrated first, then loaded', async () => {
    await withClient('postgres', async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${BARE} WITH (FORCE)`);
      await c.query(`CREATE DATABASE ${BARE}`);
    });
    const run = spawnSync('bash', ['-c', `${GENERATE} | ${TSX} scripts/ingest.ts --json`], {
      env: { ...env, DATABASE_URL: `${SERVER}/${BARE}` },
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/schema: applied \d+ migration\(s\)/);
    expect(JSON.parse(run.stdout).byType.observation.inserted).toBeGreaterThan(1_000);
    // A bulk load (the database was empty): what it deferred is back.
    expect(await schemaOf(BARE)).toEqual(await schemaOf(inject('templateDatabase')));
  });
});
