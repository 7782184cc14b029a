// The drop when PostgreSQL goes away (docs/INGEST.md "Exactly once"): the consumer's connection is
// killed in the middle of a run (its chunk in flight rolls back), then the database refuses the next
// delivery; each time the messages are retried, and the run then resumes after its last committed
// chunk: the tables equal the CLI's load of the same file, nothing lost, nothing doubled.
import { beforeAll, describe, expect, it } from 'vitest';
import { DROP_LOCK } from '../../functions/jobs/ingest';
import { ingest } from '../../shared/ingest/index';
import { dataset } from '../fixtures/oracle';
import { deliver, drop, ndjson, runOf, tableDigests } from '../helpers/drop';
import { createWorld, type World } from '../helpers/world';

const FILE = ndjson(dataset()[0]);
const LINES = FILE.trimEnd().split('\n').length;
let reference: Record<string, string>;

beforeAll(async () => {
  const cli = await createWorld('drop_outage_cli');
  const client = await cli.pool().connect();
  await ingest(client, FILE.split('\n')).finally(() => client.release());
  reference = await tableDigests(cli);
}, 120_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Terminates the backend that holds the drop's session lock (the consumer's connection), once it has committed a chunk. */
async function killConsumerMidRun(world: World, n: Parameters<typeof runOf>[1]): Promise<number> {
  for (let i = 0; i < 600; i++) {
    const run = await runOf(world, n);
    if (run && run.lines_done > 0) {
      const { rows } = await world.pool().query<{ killed: boolean }>(
        `SELECT pg_terminate_backend(pid) AS killed FROM pg_locks
         WHERE locktype = 'advisory' AND classid = 0 AND objid = $1 AND granted
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [DROP_LOCK],
      );
      if (rows.length > 0) return run.lines_done;
    }
    await sleep(10);
  }
  throw new Error('the consumer never committed a chunk');
}

describe('PostgreSQL down during a run', () => {
  it('the connection killed mid-run, then the database unreachable: retried each time, then resumed, one load', async () => {
    const world = await createWorld('drop_outage');
    const n = await drop('crawler/outage.ndjson', FILE);
    const chunked = { INGEST_BATCH_SIZE: '100' };
    const delivery = deliver(world, [n], { env: chunked });
    const killedAt = await killConsumerMidRun(world, n);
    const first = await delivery;
    expect(first.result.retryMessages, 'retried, not acknowledged').toEqual([{ msgId: first.ids[0] }]);
    expect(first.result.explicitAcks).toEqual([]);
    const during = await runOf(world, n);
    expect(during?.state).toBe('running');
    expect(during!.lines_done).toBeGreaterThanOrEqual(killedAt);
    expect(during!.lines_done).toBeLessThan(LINES);

    // The database refuses connections for the next attempt (here: a database that does not exist).
    const refused = await deliver(world, [n], {
      attempts: 2,
      env: { ...chunked, DATABASE_URL: world.env.DATABASE_URL.replace(/\/[^/]*$/, '/no_such_db') },
    });
    expect(refused.result.retryMessages).toEqual([{ msgId: refused.ids[0] }]);
    expect((await runOf(world, n))!.lines_done).toBe(during!.lines_done);

    // Back: the third attempt resumes after the last committed chunk and ends the run.
    const back = await deliver(world, [n], { attempts: 3, env: chunked });
    expect(back.result.explicitAcks).toHaveLength(1);
    expect(await runOf(world, n)).toMatchObject({ state: 'done', lines_done: LINES, read: LINES, loaded: LINES, skipped: 0 });
    expect(await tableDigests(world)).toEqual(reference);
  });
});
