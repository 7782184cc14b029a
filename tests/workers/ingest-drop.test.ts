// The drop (docs/INGEST.md "The drop"): files put into the real (miniflare) bucket, their
// notifications delivered to the queue consumer, real PostgreSQL behind the gateway. Every load is
// compared with the CLI's library loading the same file into a database of its own: the same rows in
// every table it writes (roll-ups included) and the same API answers.
import { beforeAll, describe, expect, it } from 'vitest';
import { forgetIsolateCaches } from '../../shared/cache/memory';
import { ingest } from '../../shared/ingest/index';
import { dataset } from '../fixtures/oracle';
import { deliver, deliverUntilDone, drop, errorsOf, gzip, ndjson, runOf, tableDigests } from '../helpers/drop';
import { createWorld, show, type World } from '../helpers/world';

const [first, late, corrections] = dataset();
const FILE = ndjson(first);
const LINES = first.length;

/** A world loaded by the CLI's path (ingest() on one connection) with the same files. */
async function cliWorld(name: string, files: string[]): Promise<World> {
  const world = await createWorld(name);
  const client = await world.pool().connect();
  try {
    for (const file of files) await ingest(client, file.split('\n'));
  } finally {
    client.release();
  }
  return world;
}

/** The API's answers that read what a load writes (fresh: no isolate or edge copy). */
async function answers(world: World) {
  const { key } = await world.tenant({ countries: ['US', 'GB', 'DE'] });
  const out: Record<string, unknown> = {};
  for (const path of ['/v1/geo/regions?with_stats=true', '/v1/articles?limit=20&sort_by=impressions']) {
    forgetIsolateCaches();
    const reply = await world.call(path, { key, env: { REFERENCE_CACHE_SECONDS: '0', ISOLATE_CACHE_SECONDS: '0' } });
    expect(reply.status, show(reply)).toBe(200);
    out[path] = { body: reply.body, asOf: reply.headers.get('Data-As-Of') };
  }
  return out;
}

let reference: World;
let referenceDigests: Record<string, string>;

beforeAll(async () => {
  reference = await cliWorld('drop_cli', [FILE]);
  referenceDigests = await tableDigests(reference);
}, 120_000);

describe('a dropped file', () => {
  it('lands: the run ends done, the tables and the API answer equal the CLI loading the same file', async () => {
    const world = await createWorld('drop_lands');
    const n = await drop('crawler/2026/12/01/00.ndjson', FILE);
    const { result } = await deliver(world, [n]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);
    const run = await runOf(world, n);
    expect(run).toMatchObject({ state: 'done', lines_done: LINES, read: LINES, loaded: LINES, skipped: 0 });
    expect(await tableDigests(world)).toEqual(referenceDigests);
    expect(await answers(world)).toEqual(await answers(reference));
  });

  it('delivered twice (and a third time after it ended): one load, the second and third change nothing', async () => {
    const world = await createWorld('drop_twice');
    const n = await drop('crawler/twice.ndjson', FILE);
    const { result } = await deliver(world, [n, n]);
    expect(result.explicitAcks).toHaveLength(2);
    await deliver(world, [n]);
    const { rows } = await world.pool().query('SELECT count(*)::int AS n FROM ingest_runs');
    expect(rows[0].n).toBe(1);
    expect(await runOf(world, n)).toMatchObject({ state: 'done', read: LINES, loaded: LINES });
    expect(await tableDigests(world)).toEqual(referenceDigests);
  });

  it('a gzip file loads the same', async () => {
    const world = await createWorld('drop_gzip');
    const n = await drop('crawler/hour.ndjson.gz', await gzip(FILE));
    await deliver(world, [n]);
    expect(await runOf(world, n)).toMatchObject({ state: 'done', read: LINES, loaded: LINES });
    expect(await tableDigests(world)).toEqual(referenceDigests);
  });
});

describe('resuming', () => {
  it('a consumer killed between chunks, then the notification redelivered: resumes after the last chunk, one load', async () => {
    const world = await createWorld('drop_killed');
    const n = await drop('crawler/killed.ndjson', FILE);
    const small = { INGEST_BATCH_SIZE: '300', INGEST_BUDGET_MS: '0' };
    // The first invocation commits one chunk, then its budget ends (as if killed: its continuation is lost).
    const one = await deliver(world, [n], { env: small });
    expect(one.sent.continued).toHaveLength(1);
    const after = await runOf(world, n);
    expect(after).toMatchObject({ state: 'running', chunks: 1 });
    expect(after!.lines_done).toBeGreaterThan(0);
    expect(after!.lines_done).toBeLessThan(LINES);
    // The platform redelivers the original notification: the run goes on from its ledger, chunk by chunk.
    const rounds = await deliverUntilDone(world, n, { env: small });
    expect(rounds).toBeGreaterThan(2);
    expect(await runOf(world, n)).toMatchObject({ state: 'done', lines_done: LINES, read: LINES, loaded: LINES, skipped: 0 });
    expect(await tableDigests(world)).toEqual(referenceDigests);
  });

  it('a gzip file resumes too (inflated from the start, committed lines skipped)', async () => {
    const world = await createWorld('drop_gzip_resume');
    const n = await drop('crawler/resume.ndjson.gz', await gzip(FILE));
    await deliverUntilDone(world, n, { env: { INGEST_BATCH_SIZE: '700', INGEST_BUDGET_MS: '0' } });
    expect(await runOf(world, n)).toMatchObject({ state: 'done', read: LINES, loaded: LINES });
    expect(await tableDigests(world)).toEqual(referenceDigests);
  });
});

describe('bad input', () => {
  it('bad lines are stored with line number and reason; the good ones land (the CLI rule)', async () => {
    const world = await createWorld('drop_bad_lines');
    const lines = FILE.trimEnd().split('\n');
    const bad = [...lines.slice(0, 10), '{not json', '', '{"type":"nope"}', ...lines.slice(10)];
    const n = await drop('crawler/bad.ndjson', `${bad.join('\n')}\n`);
    await deliver(world, [n]);
    const run = await runOf(world, n);
    expect(run).toMatchObject({ state: 'done', read: LINES + 2, loaded: LINES, skipped: 2 });
    expect(await errorsOf(world, run!.id)).toEqual([
      { line: 11, reason: expect.stringMatching(/^invalid JSON/) },
      { line: 13, reason: 'unknown type "nope"' },
    ]);
    expect(await tableDigests(world)).toEqual(referenceDigests);
  });

  it('lines that reference rows not there yet are bad lines with their numbers, like the CLI', async () => {
    const world = await createWorld('drop_refs');
    const n = await drop('crawler/late-only.ndjson', ndjson(late));
    await deliver(world, [n]);
    const run = await runOf(world, n);
    const errors = await errorsOf(world, run!.id);
    const cli = await createWorld('drop_refs_cli');
    const client = await cli.pool().connect();
    const summary = await ingest(client, ndjson(late).split('\n')).finally(() => client.release());
    expect(summary.skipped).toBeGreaterThan(0);
    expect(run).toMatchObject({ state: 'done', skipped: summary.skipped, loaded: summary.loaded });
    expect(errors).toEqual(summary.errors);
  });

  it.each([
    ['bad gzip', new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7]), /^bad gzip/],
    ['not NDJSON', 'id,url,title\n1,https://a.example.com/x,Hello\n2,https://b.example.com/y,World\n', /^not NDJSON/],
  ])('an unreadable file (%s) ends failed with its reason and goes to the dead-letter queue', async (_name, body, reason) => {
    const world = await createWorld(`drop_unreadable_${String(_name).replace(/\W/g, '_')}`);
    const n = await drop(`crawler/unreadable-${_name}`, body);
    const { result, sent } = await deliver(world, [n]);
    expect(result.explicitAcks).toHaveLength(1);
    const run = await runOf(world, n);
    expect(run?.state).toBe('failed');
    expect(run?.reason).toMatch(reason);
    expect(sent.dead).toEqual([
      expect.objectContaining({ object: expect.objectContaining({ key: n.object.key }), run_id: run!.id, reason: run!.reason }),
    ]);
  });
});

describe('order', () => {
  it('two files dropped at once apply one after the other, in arrival order (whatever the batch order)', async () => {
    const world = await createWorld('drop_order');
    const a = await drop('crawler/a.ndjson', FILE);
    const b = await drop('crawler/b.ndjson', ndjson([...late, ...corrections]));
    await deliver(world, [b, a]);
    const [ra, rb] = [await runOf(world, a), await runOf(world, b)];
    expect(ra?.state).toBe('done');
    expect(rb?.state).toBe('done');
    expect(Date.parse(ra!.finished_at!)).toBeLessThanOrEqual(Date.parse(rb!.started_at!));
    const cli = await cliWorld('drop_order_cli', [FILE, ndjson([...late, ...corrections])]);
    expect(await tableDigests(world)).toEqual(await tableDigests(cli));
  });
});
