// The embedded PGlite's watchdog (scripts/gateway/pglite-lock.ts): a connection that opens a
// transaction and never commits holds the one backend; a /sql request waiting behind it answers
// PostgreSQL's statement-timeout error once its own statement_timeout has passed (the Workers turn that
// into their 503 + Retry-After), and once the holder has been quiet for the limit it is rolled back and
// closed with a log line naming it, and the next request is served. Requests whose callers gave up while
// waiting are dropped, /health answers while PGlite is held, and no second process opens its directory.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { neon, Pool } from '@neondatabase/serverless';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../scripts/gateway/index';
import { SET_LOCAL_TIMEOUT } from '../../shared/db/timeout';
import { caught, configureNeon } from './support/gateway';

const DB_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
const QUIET_LIMIT_MS = 3_000;
const log: string[] = [];
let gw: Gateway;

beforeAll(async () => {
  gw = await startGateway({ pgliteDir: 'memory://', pgliteQuietLimitMs: QUIET_LIMIT_MS, log: (line) => log.push(line) });
  configureNeon(gw);
  await neon(DB_URL)`CREATE TABLE held (v int)`;
});

afterAll(async () => {
  await gw?.close();
});

/** A request's query as the Workers send it: [SET LOCAL statement_timeout, query] in one HTTP transaction. */
const timed = (ms: number, query: string) =>
  fetch(gw.neonHttpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      queries: [
        { query: SET_LOCAL_TIMEOUT, params: [String(ms), 'off'] },
        { query, params: [] },
      ],
    }),
  });

it('answers a waiter after its statement_timeout, then rolls back and closes the holder that never commits', async () => {
  // The holder: a WebSocket client (as the CLI and jobs connect) that writes in a transaction and goes quiet.
  const pool = new Pool({ connectionString: DB_URL, max: 1 });
  pool.on('error', () => undefined);
  const holder = await pool.connect();
  const holderError = new Promise<Error>((resolve) => holder.on('error', resolve));
  await holder.query('BEGIN');
  await holder.query('INSERT INTO held VALUES (1)');
  const heldAt = Date.now();

  // A request waiting behind it is answered, in Neon's error shape, once its own 500 ms have passed.
  const res = await timed(500, 'SELECT count(*) FROM held');
  const waited = Date.now() - heldAt;
  expect(res.status).toBe(400);
  const body = (await res.json()) as { code: string; message: string; detail: string };
  expect(body.code).toBe('57014');
  expect(body.message).toBe('canceling statement due to statement timeout');
  expect(body.detail).toMatch(
    /held by connection #\d+ (?:"[^"]*" )?\(WebSocket \/v1 from 127\.0\.0\.1:\d+, in a transaction, last statement: INSERT INTO held/,
  );
  expect(waited).toBeGreaterThanOrEqual(500);
  expect(waited).toBeLessThan(QUIET_LIMIT_MS);

  // Through the driver, as a Worker sees it: a NeonDbError with the code (shared/http/errors.ts makes it a 503).
  const sql = neon(DB_URL);
  const err = await caught(sql.transaction([sql.query(SET_LOCAL_TIMEOUT, ['300', 'off']), sql`SELECT 1`]));
  expect((err as { code?: string }).code).toBe('57014');

  // The holder is closed once it has been quiet for the limit: its client gets PostgreSQL's FATAL 25P03.
  const closed = await holderError;
  expect(closed.message).toMatch(/terminating connection/);
  expect(Date.now() - heldAt).toBeGreaterThanOrEqual(QUIET_LIMIT_MS);
  expect(log.join('\n')).toMatch(
    /pglite watchdog: connection #\d+ (?:"[^"]*" )?\(WebSocket \/v1 from 127\.0\.0\.1:\d+, in a transaction, last statement: INSERT INTO held VALUES \(1\)\) held the embedded database for [\d.]+ s, the last [\d.]+ s without a statement \(limit 3\.0 s\), \d+ waiting: rolled back and closed/,
  );
  holder.release(closed);
  await pool.end().catch(() => undefined);

  // Rolled back, and the database is free again.
  const after = await timed(1_000, 'SELECT count(*)::int AS n FROM held');
  expect(after.status).toBe(200);
  expect(((await after.json()) as { results: { rows: { n: string }[] }[] }).results[1].rows[0].n).toBe('0');
});

it('answers /health while a holder keeps the database, naming it', async () => {
  const pool = new Pool({ connectionString: DB_URL, max: 1 });
  pool.on('error', () => undefined);
  const holder = await pool.connect();
  holder.on('error', () => undefined);
  await holder.query('BEGIN');
  const started = Date.now();
  const res = await fetch(`http://127.0.0.1:${gw.port}/health`);
  expect(Date.now() - started).toBeLessThan(QUIET_LIMIT_MS);
  expect(res.status).toBe(503);
  const body = (await res.json()) as { checks: { postgres: string; redis: string } };
  expect(body.checks.postgres).toMatch(/^no answer within 2000 ms \(the embedded database is held by connection #\d+/);
  expect(body.checks.redis).toBe('ok');
  await holder.query('ROLLBACK');
  holder.release();
  await pool.end();
});

it('serves a waiter as soon as a holder commits within its statement_timeout', async () => {
  const pool = new Pool({ connectionString: DB_URL, max: 1 });
  pool.on('error', () => undefined);
  const holder = await pool.connect();
  holder.on('error', () => undefined);
  await holder.query('BEGIN');
  await holder.query('INSERT INTO held VALUES (2)');
  const waiting = timed(2_000, 'SELECT count(*)::int AS n FROM held');
  await new Promise((r) => setTimeout(r, 300));
  await holder.query('COMMIT');
  const res = await waiting;
  expect(res.status).toBe(200);
  expect(((await res.json()) as { results: { rows: { n: string }[] }[] }).results[1].rows[0].n).toBe('1');
  holder.release();
  await pool.end();
});

it('drops requests whose callers gave up while they waited, instead of running them later', async () => {
  await neon(DB_URL)`CREATE TABLE abandoned (v int)`;
  const pool = new Pool({ connectionString: DB_URL, max: 1 });
  const holder = await pool.connect();
  await holder.query('BEGIN');
  // 20 callers (a Worker's cancelled requests) give up after 200 ms while the holder keeps PGlite.
  const gaveUp = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      fetch(gw.neonHttpUrl, {
        method: 'POST',
        signal: AbortSignal.timeout(200),
        body: JSON.stringify({
          queries: [
            { query: SET_LOCAL_TIMEOUT, params: ['2000', 'off'] },
            { query: `INSERT INTO abandoned VALUES (${i})`, params: [] },
          ],
        }),
      }).then(
        () => false,
        () => true,
      ),
    ),
  );
  expect(gaveUp.every(Boolean)).toBe(true);
  await new Promise((r) => setTimeout(r, 200));
  await holder.query('COMMIT');
  holder.release();
  await pool.end();
  await new Promise((r) => setTimeout(r, 300));
  const [{ n }] = (await neon(DB_URL)`SELECT count(*)::int AS n FROM abandoned`) as { n: number }[];
  expect(n).toBe(0);
});

it('names a holder that others wait behind before it evicts it', async () => {
  const pool = new Pool({ connectionString: `${DB_URL}?application_name=quiet-cli`, max: 1 });
  pool.on('error', () => undefined);
  const holder = await pool.connect();
  holder.on('error', () => undefined);
  await holder.query('BEGIN');
  const waiter = timed(5_000, 'SELECT 1');
  await new Promise((r) => setTimeout(r, QUIET_LIMIT_MS / 2 + 300));
  expect(log.join('\n')).toMatch(
    /pglite watchdog: connection #\d+ "quiet-cli" \(WebSocket .*\) has held the embedded database for [\d.]+ s without a statement for [\d.]+ s; 1 waiting/,
  );
  expect((await waiter).status).toBe(200); // served once the holder is evicted, within its 5 s
  holder.release(new Error('evicted'));
  await pool.end().catch(() => undefined);
});

it('refuses a second gateway over the data directory of a running one', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-lock-'));
  const first = await startGateway({ pgliteDir: join(dir, 'pglite') });
  try {
    // Same process here; another process (a CLI beside npm start) is refused the same way by pid.
    const lockFile = join(dir, 'pglite.lock');
    expect(await readFile(lockFile, 'utf8')).toBe(String(process.pid));
    await writeFile(lockFile, String(process.ppid)); // as if the parent process had it open
    expect(String(await caught(startGateway({ pgliteDir: join(dir, 'pglite') })))).toMatch(
      new RegExp(`the embedded database .*pglite is open in process ${process.ppid}`),
    );
  } finally {
    await first.close();
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);
