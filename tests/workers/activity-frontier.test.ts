// The activity hulls open at the frontier on PostgreSQL, case by case (tests/fixtures/frontier.ts).
import { beforeAll, describe, it } from 'vitest';
import { expectFrontierReads, expectFrontierState, loadFrontierBatches, type AfterBatch } from '../fixtures/frontier';
import { createWorld, type World } from '../helpers/world';

let world: World;
let after: AfterBatch[];

beforeAll(async () => {
  world = await createWorld('activity_frontier');
  const client = await world.pool().connect();
  try {
    after = await loadFrontierBatches(client);
  } finally {
    client.release();
  }
}, 120_000);

describe('activity hulls open at the frontier', () => {
  it('after every batch the kept hulls equal a full rebuild; the frontier moves forward only, hulls are open only at it', async () => {
    await expectFrontierState(world.db, after);
  });

  it('reads equal plain SQL over raw observations for every window around the frontier', async () => {
    await expectFrontierReads(world.db);
  }, 120_000);
});
