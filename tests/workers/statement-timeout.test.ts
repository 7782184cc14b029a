// No query runs unbounded (docs/SECURITY.md "Statement timeouts"). Every query path carries its own statement_timeout,
// piggybacked on the query's own HTTP transaction, and a cancelled query answers 503 + Retry-After.
import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import worker from '../../functions/index';
import { createList } from '../../shared/admin/lists';
import { createDb } from '../../shared/db/client';
import { STATEMENT_TIMEOUT_MS } from '../../shared/db/timeout';
import { createWorld, show, type World } from '../helpers/world';

let world: World;
let key: string;
let projectId: string;

beforeAll(async () => {
  world = await createWorld('statement_timeout');
  ({ key, projectId } = await world.tenant());
}, 60_000);

afterAll(async () => {
  await world.pool().end();
});

/** JSON lines written to console.warn/error while `work` runs. */
async function captureLogs<T>(work: () => Promise<T>): Promise<{ result: T; lines: Record<string, any>[] }> {
  const lines: string[] = [];
  for (const method of ['warn', 'error'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' ')));
  }
  try {
    const result = await work();
    return {
      result,
      lines: lines.flatMap((line) => {
        try {
          return [JSON.parse(line)];
        } catch {
          return [];
        }
      }),
    };
  } finally {
    vi.restoreAllMocks();
  }
}

/** Runs `work` while another session holds an exclusive lock on `table`: any query reading it waits. */
async function whileLocked<T>(table: string, work: () => Promise<T>): Promise<T> {
  const client = await world.pool().connect();
  try {
    await client.query('BEGIN');
    await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    return await work();
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

describe('every query carries its path statement_timeout, in the same round trip', () => {
  it('a lone query and a batch see the request timeout (SET LOCAL in their own transaction)', async () => {
    const db = createDb(world.env);
    const [lone] = (await db.$client.query('SHOW statement_timeout')) as { statement_timeout: string }[];
    expect(lone.statement_timeout).toBe(`${STATEMENT_TIMEOUT_MS.request / 1000}s`);
    const [a, b] = await db.$client.transaction([db.$client.query('SHOW statement_timeout'), db.$client.query('SELECT 2 AS two')]);
    expect(a).toEqual([{ statement_timeout: `${STATEMENT_TIMEOUT_MS.request / 1000}s` }]);
    expect(b).toEqual([{ two: 2 }]);
  });

  it('the binding and the jobs path set their own value', async () => {
    const request = createDb({ ...world.env, STATEMENT_TIMEOUT_MS: '1234' });
    expect(await request.$client.query('SHOW statement_timeout')).toEqual([{ statement_timeout: '1234ms' }]);
    const job = createDb(world.env, STATEMENT_TIMEOUT_MS.job);
    expect(await job.$client.query('SHOW statement_timeout')).toEqual([{ statement_timeout: '1min' }]);
  });

  it("a request's statements run without JIT compilation; a job's keep the server's setting, in the same round trip", async () => {
    const [server] = (await createDb(world.env, 0).$client.query('SHOW jit')) as { jit: string }[];
    expect(await createDb(world.env).$client.query('SHOW jit')).toEqual([{ jit: 'off' }]);
    const [a] = await createDb(world.env).$client.transaction((sql) => [sql.query('SHOW jit')]);
    expect(a).toEqual([{ jit: 'off' }]);
    expect(await createDb(world.env, STATEMENT_TIMEOUT_MS.job, false).$client.query('SHOW jit')).toEqual([server]);
  });

  it('the setting ends with its transaction: a plain session keeps the server default', async () => {
    await createDb(world.env).$client.query('SELECT 1');
    const client = await world.pool().connect();
    try {
      const { rows } = await client.query('SHOW statement_timeout');
      expect(rows[0].statement_timeout).toBe('0');
    } finally {
      client.release();
    }
  });
});

describe('attack: a query slower than the request timeout', () => {
  it('/v1/articles blocked past its timeout answers 503 query_timeout + Retry-After, logged; never 500', async () => {
    const { result: reply, lines } = await captureLogs(() =>
      whileLocked('articles', () => world.call('/v1/articles?limit=5', { key, env: { STATEMENT_TIMEOUT_MS: '300' } })),
    );
    expect(reply.status, show(reply)).toBe(503);
    expect(reply.headers.get('Retry-After')).toBe('15');
    expect(reply.body.detail.code).toBe('query_timeout');
    expect(reply.body.detail.message).toMatch(/cancelled/);
    const logged = lines.find((line) => line.msg === 'statement timeout');
    expect(logged, JSON.stringify(lines)).toMatchObject({ level: 'warn', code: '57014', path: '/v1/articles' });
    // The same request once the lock is gone: served.
    const after = await world.call('/v1/articles?limit=5', { key, env: { STATEMENT_TIMEOUT_MS: '300' } });
    expect(after.status, show(after)).toBe(200);
  });

  it('/v2/feed the same way', async () => {
    const reply = await whileLocked('profile_windows', () => world.call('/v2/feed?limit=5', { key, env: { STATEMENT_TIMEOUT_MS: '300' } }));
    expect(reply.status, show(reply)).toBe(503);
    expect(reply.headers.get('Retry-After')).toBe('15');
    expect(reply.body.detail.code).toBe('query_timeout');
  });
});

describe('the jobs path has its own timeout', () => {
  it('a mention scan blocked past JOB_STATEMENT_TIMEOUT_MS stores scan_timeout (its session timeout fired)', async () => {
    const list = (
      await createList(
        world.db,
        {
          projectId,
          kind: 'mention',
          name: 'Energy',
          countries: ['US'],
          langs: ['en'],
          searchScope: 'both',
          createdAt: new Date(),
          terms: [{ keyword: 'heat pump', matchType: 'broad' }],
        },
        new Date(),
      )
    ).id;
    const batch = createMessageBatch('discovery-jobs', [
      { id: 's1', timestamp: new Date(), attempts: 1, body: { type: 'scan', listId: list } },
    ]);
    const ctx = createExecutionContext();
    await captureLogs(() =>
      whileLocked('mention_matches', () => worker.queue(batch as any, { ...world.env, JOB_STATEMENT_TIMEOUT_MS: '300' } as any, ctx)),
    );
    await getQueueResult(batch, ctx);
    const [row] = (await world.db.$client.query(`SELECT scan_status, scan_error FROM tracking_lists WHERE id = $1`, [list])) as {
      scan_status: string;
      scan_error: string;
    }[];
    expect(row).toMatchObject({ scan_status: 'failed', scan_error: expect.stringMatching(/^scan_timeout: /) });
  });
});
