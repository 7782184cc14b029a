// Bulk load, then hourly batches in the live shape (one hour for every profile, late lines for
// earlier hours, corrections up and down to zero impressions, repeated lines): after EVERY hourly
// batch the roll-ups kept incrementally equal a full rebuild, and at the end every roll-up read
// equals plain SQL over raw observations. Zero corrections make URLs lose activity, the path where
// lost hours are cut out of activity groups instead of merged (shared/rollups/write-activity.ts).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../shared/db/raw';
import type { DimensionKind } from '../../shared/db/schema';
import { ingest } from '../../shared/ingest/index';
import type { Grain } from '../../shared/rollups/buckets';
import type { KeyedScope } from '../../shared/rollups/read';
import { rollupsDiffer } from '../../scripts/bench/rollups-exact';
import { BASE, CATEGORIES, dataset, DOMAINS, expectRollupReads, HOURS, TRENDS } from '../fixtures/oracle';
import { createWorld, type World } from '../helpers/world';
import { listedScope } from '../helpers/scope';

const HOUR_MS = 3_600_000;
const BATCHES = 4;

let world: World;
let keys: Record<DimensionKind, string[]>;
const differences: { batch: number; tables: string[] }[] = [];
/** Hours inside the data's range with zero impressions, before and after the hourly batches. */
const zeroHours = { before: 0, after: 0 };

/** One hour after the data for every profile, with late, corrected (some to zero) and repeated lines. */
function hourBatch(
  profiles: { url_id: string; country: string; language: string }[],
  k: number,
  stored: { url_id: string; country: string; language: string; hour: string }[],
) {
  const hour = new Date(BASE + (HOURS + k) * HOUR_MS).toISOString();
  const lines: object[] = [];
  profiles.forEach((p, i) => {
    const obs = {
      type: 'observation',
      ...p,
      hour,
      impressions: (i * 37 + k * 11) % 5 === 0 ? 0 : 10 + ((i * 53 + k) % 300),
      position: 1 + ((i + k) % 12),
    };
    lines.push(obs);
    if ((i + k) % 7 === 0) lines.push(obs); // repeated in the same batch
  });
  // Late lines: corrections of stored hours, every third one to zero impressions (activity lost).
  stored
    .filter((_, i) => (i + k) % 9 === 0)
    .forEach((o, i) => {
      lines.push({
        type: 'observation',
        url_id: o.url_id,
        country: o.country,
        language: o.language,
        hour: o.hour,
        impressions: i % 3 === 0 ? 0 : 5 + i,
        position: 2.5,
      });
    });
  // A late hour nobody sent before (inside the data's range).
  const p = profiles[k % profiles.length];
  lines.push({ type: 'observation', ...p, hour: new Date(BASE + (HOURS - 30 - k) * HOUR_MS).toISOString(), impressions: 17, position: 3 });
  return lines.map((l) => JSON.stringify(l));
}

/**
 * One article joins a category it was not in and loses hours in the same batch (its first and a middle
 * active hour corrected to zero): the lost hours are cut from groups that never held them.
 */
function joinAndLose(articles: object[], stored: { url_id: string; country: string; language: string; hour: string }[]) {
  const article = articles.find((r) => (r as { id?: string }).id?.endsWith('000000000001')) as { id: string; categories: object[] };
  const hours = stored.filter((o) => o.url_id === article.id);
  const lost = [hours[0], hours[Math.floor(hours.length / 2)]];
  return [
    { ...article, categories: [...article.categories, { name: '/Tech', confidence: 0.3 }] },
    ...lost.map((o) => ({ type: 'observation', ...o, impressions: 0, position: 1 })),
  ].map((l) => JSON.stringify(l));
}

beforeAll(async () => {
  world = await createWorld('hourly_oracle');
  const client = await world.pool().connect();
  try {
    // Bulk: the oracle's first two batches with the roll-ups rebuilt at the end.
    const [first, second, third] = dataset();
    const bulk = await ingest(
      client,
      [...first, ...second].map((r) => JSON.stringify(r)),
      { rollups: 'rebuild-at-end' },
    );
    if (bulk.skipped) throw new Error(JSON.stringify(bulk.errors.slice(0, 3)));
    // The oracle's corrections, duplicates and changed article as an incremental batch.
    const corrections = await ingest(
      client,
      third.map((r) => JSON.stringify(r)),
    );
    if (corrections.skipped) throw new Error(JSON.stringify(corrections.errors.slice(0, 3)));
    const zeroInRange = async () =>
      (
        await client.query<{ n: number }>('SELECT count(*)::int AS n FROM observations WHERE impressions = 0 AND hour < $1', [
          new Date(BASE + HOURS * HOUR_MS).toISOString(),
        ])
      ).rows[0].n;
    zeroHours.before = await zeroInRange();
    const { rows: profiles } = await client.query<{ url_id: string; country: string; language: string }>(
      'SELECT url_id::text, country, language FROM url_profiles ORDER BY 1, 2, 3',
    );
    for (let k = 0; k < BATCHES; k++) {
      const { rows: stored } = await client.query<{ url_id: string; country: string; language: string; hour: string }>(
        `SELECT url_id::text, country, language, to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:00:00"Z"') AS hour FROM observations
         WHERE impressions > 0 ORDER BY 1, 2, 3, 4`,
      );
      const lines = [...hourBatch(profiles, k, stored), ...(k === 1 ? joinAndLose(first, stored) : [])];
      const summary = await ingest(client, lines, { now: new Date(BASE + (HOURS + k + 1) * HOUR_MS + 60_000) });
      if (summary.skipped) throw new Error(JSON.stringify(summary.errors.slice(0, 3)));
      differences.push({ batch: k, tables: await rollupsDiffer(client) });
    }
    zeroHours.after = await zeroInRange();
  } finally {
    client.release();
  }
  const entityIds = await queryRows<{ id: string }>(world.db, 'SELECT id::text FROM entities ORDER BY normalized_name');
  keys = { entity: entityIds.map((r) => r.id), category: [...CATEGORIES, '/Sports'], publisher: DOMAINS, trend: TRENDS, term: [] };
}, 240_000);

describe('bulk load, then hourly batches with late, repeated and corrected lines', () => {
  it('after every hourly batch, the incrementally kept roll-ups equal a full rebuild', () => {
    expect(differences.length).toBe(BATCHES);
    expect(differences).toEqual(Array.from({ length: BATCHES }, (_, batch) => ({ batch, tables: [] })));
  });

  it('the batches both gained and lost activity (the merge and the cut paths both ran)', async () => {
    // Late corrections to zero turned active hours inside the data's range inactive (spans split or
    // shrank), and the new hours extended spans past it. Counted on the data, not assumed.
    expect(zeroHours.after).toBeGreaterThan(zeroHours.before);
    const extended = await queryRows<{ n: number }>(world.db, `SELECT count(*)::int AS n FROM url_spans WHERE end_hour > $1`, [
      new Date(BASE + HOURS * HOUR_MS).toISOString(),
    ]);
    expect(extended[0].n).toBeGreaterThan(0);
  });

  it('roll-up reads equal plain SQL over raw observations for random windows, markets and keys', async () => {
    const arbitrary = fc.record({
      kind: fc.constantFrom<DimensionKind>('entity', 'category', 'publisher', 'trend'),
      keyMask: fc.integer({ min: 1, max: 15 }),
      markets: fc.constantFrom<string[]>(['US', 'GB', 'DE'], ['US'], ['GB', 'DE']),
      start: fc.integer({ min: (HOURS - 72) * 60, max: (HOURS + BATCHES) * 60 }),
      length: fc.integer({ min: 30, max: 4 * 24 * 60 }),
      grain: fc.constantFrom<Grain>('hour', 'day'),
    });
    await fc.assert(
      fc.asyncProperty(arbitrary, async (q) => {
        const all = keys[q.kind];
        const chosen = all.filter((_, i) => q.keyMask & (1 << (i % 4)));
        const scope: KeyedScope = {
          kind: q.kind,
          keys: chosen.length ? chosen : all,
          keyScope: await listedScope(world.db, q.markets),
          language: null,
        };
        const from = new Date(BASE + q.start * 60_000);
        const to = new Date(from.getTime() + q.length * 60_000);
        await expectRollupReads(world.db, scope, from, to, q.grain);
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
