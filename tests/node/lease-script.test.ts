// The edge limits' script (shared/limits/lease.ts) on the machine's real Redis and on the gateway's
// in-process engine (its Lua interpreter in scripts/gateway/memory-lua.ts, what `npm start` runs on
// embedded defaults): the same replies and the same state for one sequence of calls, and the
// properties the bounds stand on: a batch counted once per token, the leases of every holder
// together within the slack, also for holders joining at once, and a lapsed lease freed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRedis } from '../../scripts/gateway/memory-redis';
import { RealRedis } from '../../scripts/gateway/redis-real';
import type { Reply } from '../../scripts/gateway/redis-types';
import { LEASE_MS, LEASE_SCRIPT } from '../../shared/limits/lease';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const P = `leasetest:${crypto.randomUUID().slice(0, 8)}:`;
const MINUTE = `${P}lease-m`;
const MONTH = `${P}lease-q`;
const QUOTA = `${P}quota`;

let real: RealRedis;
beforeAll(() => {
  real = new RealRedis(REDIS_URL);
});
afterAll(async () => {
  const keys = (await real.exec(['KEYS', `${P}*`])) as Buffer[];
  if (keys.length) await real.exec(['DEL', ...keys.map(String)]);
  await real.close();
});

interface Call {
  now: number;
  holder: string;
  floor?: number;
  /** The most the holder asks for (0: strict); the whole slack by default. */
  want?: number;
  minuteSlack?: number;
  monthSlack?: number;
  batches?: [token: string, hits: number][];
}

/** The EVAL command of one call, as shared/limits/lease.ts builds it. */
function command(c: Call): string[] {
  const batches = c.batches ?? [['', 0]];
  const keys = [MINUTE, MONTH, ...batches.flatMap(([token]) => [QUOTA, `${P}batch:${token || 'none'}`])];
  const args = [c.now, LEASE_MS, c.holder, c.floor ?? 0, c.want ?? 100, c.minuteSlack ?? 10, c.monthSlack ?? 5, 3600, 600_000];
  return ['EVAL', LEASE_SCRIPT, String(keys.length), ...keys, ...[...args, batches.length, ...batches.map(([, hits]) => hits)].map(String)];
}

const T0 = 1_800_000_000_000;
const SEQUENCE: Call[] = [
  { now: T0, holder: 'a', batches: [['t1', 3]] }, // the first holder: all the slack it may have (min(10, 5))
  { now: T0 + 1, holder: 'b', batches: [['t2', 1]] }, // joins: the others hold everything
  { now: T0 + 2, holder: 'c', batches: [['t1', 3]] }, // t1 again (a call that timed out after it ran): not counted
  { now: T0 + 3, holder: 'a', floor: 1, batches: [['t3', 2]] }, // a renews with three holders: its share (or its floor)
  { now: T0 + 4, holder: 'b', batches: [['t4', -1]] }, // a refund
  { now: T0 + 5, holder: 'c', want: 0 }, // strict: leaves
  { now: T0 + LEASE_MS + 10, holder: 'd', batches: [['t5', 1]] }, // every other lease lapsed
];

describe('the lease script', () => {
  it('answers the same and leaves the same state on Redis and on the in-process engine', async () => {
    const memory = new MemoryRedis();
    const replies: { redis: Reply; memory: Reply }[] = [];
    for (const call of SEQUENCE) {
      const cmd = command(call);
      replies.push({ redis: await real.exec(cmd), memory: await memory.exec(cmd) });
    }
    for (const [i, { redis, memory: mem }] of replies.entries()) expect(mem, `call ${i + 1}`).toEqual(redis);
    for (const cmd of [
      ['GET', QUOTA],
      ['HGETALL', MINUTE],
      ['HGETALL', MONTH],
    ]) {
      expect(String(await memory.exec(cmd)), cmd.join(' ')).toBe(String(await real.exec(cmd)));
    }
    // used, lease: 3 then nothing for b (a holds the month slack of 5); t1 not counted again; a shrinks
    // to its share of three holders (5 / 3); the refund, and b's share of what a left; after the lapse
    // d alone may have the whole slack again.
    expect(replies.map((r) => r.redis)).toEqual([
      [3, 5],
      [4, 0],
      [4, 0],
      [6, 1],
      [5, 1],
      [5, 0],
      [6, 5],
    ]);
  });

  it('holders joining at once never lease more than the slack together', async () => {
    const memory = new MemoryRedis();
    for (const exec of [(cmd: string[]) => real.exec(cmd), (cmd: string[]) => memory.exec(cmd)]) {
      const round = crypto.randomUUID().slice(0, 6);
      const calls = Array.from({ length: 12 }, (_, i) => command({ now: T0, holder: `${round}-${i}`, minuteSlack: 20, monthSlack: 100 }));
      await exec(['DEL', MINUTE, MONTH]);
      const leases = (await Promise.all(calls.map(exec))).map((r) => (r as number[])[1]);
      expect(leases.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(20);
      expect(leases[0]).toBe(20);
      // Each renews in turn: the first shrinks to its share, and every holder gets one.
      const renewed: number[] = [];
      for (let i = 0; i < 12; i++) renewed.push(((await exec(calls[i])) as number[])[1]);
      const second: number[] = [];
      for (let i = 0; i < 12; i++) second.push(((await exec(calls[i])) as number[])[1]);
      expect(second.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(20);
      expect(
        second.every((lease) => lease >= 1),
        JSON.stringify(second),
      ).toBe(true);
    }
  });

  it('a holder asks for what it needs: a quiet holder leaves the rest of the slack to one that joins', async () => {
    const memory = new MemoryRedis();
    for (const exec of [(cmd: string[]) => real.exec(cmd), (cmd: string[]) => memory.exec(cmd)]) {
      await exec(['DEL', MINUTE, MONTH]);
      const lease = async (call: Call) => ((await exec(command({ minuteSlack: 100, monthSlack: 100, ...call }))) as number[])[1];
      expect(await lease({ now: T0, holder: 'quiet', want: 10 })).toBe(10);
      // Without `want` the first holder took the whole slack, and a holder joining got nothing until it lapsed.
      expect(await lease({ now: T0 + 1, holder: 'new', want: 10 })).toBe(10);
      expect(await lease({ now: T0 + 2, holder: 'busy', want: 200 })).toBe(33);
      expect(await lease({ now: T0 + 3, holder: 'quiet', want: 0, floor: 2 })).toBe(2);
    }
  });
});
