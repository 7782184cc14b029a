// The reference oracle: roll-up reads equal plain SQL over raw observations (no roll-ups) for
// random windows, markets, languages, grains and keys, after late data, duplicates, corrections
// and membership changes arriving in later batches.
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../shared/db/raw';
import type { DimensionKind } from '../../shared/db/schema';
import type { Grain } from '../../shared/rollups/buckets';
import { distinctFromActivity, publicationsFromActivity } from '../../shared/rollups/activity-counts';
import { distinctByKey, distinctFromSpans, publicationsFromSpans, seriesByKey, type KeyedScope } from '../../shared/rollups/read';
import { BASE, CATEGORIES, dataset, DOMAINS, expectRollupReads, HOURS, naiveDistinct, naiveSeries, TRENDS } from '../fixtures/oracle';
import { seed } from '../helpers/seed';
import { createWorld, rebuildWorld, type World } from '../helpers/world';
import { listedScope } from '../helpers/scope';
import { marketList } from '../../shared/scope/scope';

let world: World;
let keys: Record<DimensionKind, string[]>;

beforeAll(async () => {
  world = await createWorld('oracle');
  for (const batch of dataset()) await seed(world, batch);
  const entityIds = await queryRows<{ id: string }>(world.db, 'SELECT id::text FROM entities ORDER BY normalized_name');
  keys = { entity: entityIds.map((r) => r.id), category: [...CATEGORIES, '/Sports'], publisher: DOMAINS, trend: TRENDS, term: [] };
}, 120_000);

const arbitraryQuery = fc.record({
  kind: fc.constantFrom<DimensionKind>('entity', 'category', 'publisher', 'trend'),
  keyMask: fc.integer({ min: 1, max: 15 }),
  markets: fc.subarray(['US', 'GB', 'DE'], { minLength: 1 }),
  language: fc.constantFrom(null, 'en', 'es', 'de'),
  // Minutes, so windows start and end off the hour as real requests do.
  start: fc.integer({ min: -24 * 60, max: HOURS * 60 }),
  length: fc.integer({ min: 30, max: 10 * 24 * 60 }),
  grain: fc.constantFrom<Grain>('hour', 'day'),
});

describe('roll-ups equal the raw-observation reference', () => {
  it('impressions, position sums and publications per bucket; distinct counts and last_seen per window', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryQuery, async (q) => {
        const all = keys[q.kind];
        const chosen = all.filter((_, i) => q.keyMask & (1 << (i % 4)));
        const scope: KeyedScope = {
          kind: q.kind,
          keys: chosen.length ? chosen : all,
          keyScope: await listedScope(world.db, q.markets),
          language: q.language,
        };
        const from = new Date(BASE + q.start * 60_000);
        const to = new Date(from.getTime() + q.length * 60_000);
        await expectRollupReads(world.db, scope, from, to, q.grain);
        // The same keys as broad keys the database finds (the scope's spans read once, then each
        // key's URLs): the same counts as the keys named, per key and across keys.
        const broad = { ...scope, keys: { sql: sql`${sql.param(scope.keys)}::text[]`, broad: true } };
        const [named, found, namedAcross, foundAcross] = await Promise.all([
          distinctFromSpans(world.db, scope, from, to),
          distinctFromSpans(world.db, broad, from, to),
          distinctFromSpans(world.db, scope, from, to, { across: true }),
          distinctFromSpans(world.db, broad, from, to, { across: true }),
        ]);
        expect(found, `${q.kind} broad keys`).toEqual(named);
        expect(foundAcross, `${q.kind} broad keys, across`).toEqual(namedAcross);
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it('every market and language: sums from the all-markets rows, distinct counts and publications per bucket from the activity hulls equal the reference and url_spans', async () => {
    const arbitraryWindow = fc.record({
      kind: fc.constantFrom<DimensionKind>('entity', 'category', 'publisher', 'trend'),
      keyMask: fc.integer({ min: 1, max: 15 }),
      start: fc.integer({ min: -24 * 60, max: HOURS * 60 }),
      length: fc.integer({ min: 30, max: 10 * 24 * 60 }),
      grain: fc.constantFrom<Grain>('hour', 'day'),
    });
    await fc.assert(
      fc.asyncProperty(arbitraryWindow, async (q) => {
        const all = keys[q.kind];
        const chosen = all.filter((_, i) => q.keyMask & (1 << (i % 4)));
        const scope: KeyedScope = {
          kind: q.kind,
          keys: chosen.length ? chosen : all,
          keyScope: await listedScope(world.db, ['US', 'GB', 'DE']),
          language: null,
        };
        const from = new Date(BASE + q.start * 60_000);
        const to = new Date(from.getTime() + q.length * 60_000);
        const [hulls, spans, reference, perBucket, perBucketSpans, series, totals] = await Promise.all([
          distinctFromActivity(world.db, scope, from, to),
          distinctFromSpans(world.db, scope, from, to),
          naiveDistinct(world.db, scope, from, to),
          publicationsFromActivity(world.db, scope, from, to, q.grain),
          publicationsFromSpans(world.db, scope, from, to, q.grain),
          naiveSeries(world.db, scope, from, to, q.grain),
          seriesByKey(world.db, scope, from, to, q.grain),
        ]);
        for (const key of scope.keys) {
          expect(totals.get(key)!.impressions, `${q.kind} ${key} impressions from the all-markets rows`).toEqual(series.get(key)!.imp);
          for (const [i, v] of totals.get(key)!.positionSum.entries()) expect(v).toBeCloseTo(series.get(key)!.ps[i], 3);
          expect(perBucket.get(key), `${q.kind} ${key} publications per bucket from the hulls`).toEqual(series.get(key)!.pubs);
          expect(perBucketSpans.get(key), `${q.kind} ${key} publications per bucket from url_spans`).toEqual(series.get(key)!.pubs);
        }
        const want = new Map(
          [...reference].map(([k, r]) => [
            k,
            { publications: r.publications, publishers: r.publishers, trends: r.trends, lastSeen: r.last_seen },
          ]),
        );
        expect(hulls, `${q.kind} from the activity hulls`).toEqual(want);
        expect(spans, `${q.kind} from url_spans`).toEqual(want);
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it("one market and every language: category distinct counts and publications per bucket from that market's hulls equal the reference", async () => {
    const arbitraryWindow = fc.record({
      keyMask: fc.integer({ min: 1, max: 15 }),
      market: fc.constantFrom('US', 'GB', 'DE'),
      start: fc.integer({ min: -24 * 60, max: HOURS * 60 }),
      length: fc.integer({ min: 30, max: 10 * 24 * 60 }),
      grain: fc.constantFrom<Grain>('hour', 'day'),
    });
    await fc.assert(
      fc.asyncProperty(arbitraryWindow, async (q) => {
        const all = keys.category;
        const chosen = all.filter((_, i) => q.keyMask & (1 << (i % 4)));
        const scope: KeyedScope = {
          kind: 'category',
          keys: chosen.length ? chosen : all,
          keyScope: await listedScope(world.db, [q.market]),
          language: null,
        };
        const from = new Date(BASE + q.start * 60_000);
        const to = new Date(from.getTime() + q.length * 60_000);
        const [market] = marketList(scope.keyScope);
        const [hulls, read, reference, perBucket, series] = await Promise.all([
          distinctFromActivity(world.db, scope, from, to, market),
          distinctByKey(world.db, scope, from, to),
          naiveDistinct(world.db, scope, from, to),
          publicationsFromActivity(world.db, scope, from, to, q.grain, market),
          naiveSeries(world.db, scope, from, to, q.grain),
        ]);
        for (const key of scope.keys)
          expect(perBucket.get(key), `${key} publications per bucket in ${market}`).toEqual(series.get(key)!.pubs);
        const want = new Map(
          [...reference].map(([k, r]) => [
            k,
            { publications: r.publications, publishers: r.publishers, trends: r.trends, lastSeen: r.last_seen },
          ]),
        );
        expect(hulls, `category in ${market} from its hulls`).toEqual(want);
        expect(read, `category in ${market} as distinctByKey reads it`).toEqual(want);
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  it('loading the last batch again changes nothing', async () => {
    const before = await queryRows<{ n: number; s: number }>(
      world.db,
      'SELECT count(*)::int AS n, coalesce(sum(impressions), 0)::float8 AS s FROM dim_hours',
    );
    // (Reloading earlier batches would legitimately undo the later corrections.)
    const summary = await seed(world, dataset()[2]);
    expect(summary.changed, 'a second identical load reports zero changes').toBe(0);
    const after = await queryRows<{ n: number; s: number }>(
      world.db,
      'SELECT count(*)::int AS n, coalesce(sum(impressions), 0)::float8 AS s FROM dim_hours',
    );
    expect(after).toEqual(before);
  }, 120_000);

  it('a full rebuild gives exactly the roll-ups the incremental path kept', async () => {
    const snapshot = async () => ({
      hours: await queryRows(
        world.db,
        `SELECT k.kind, k.key, h.country, h.language, h.hour::text, h.impressions::float8, round(h.position_sum::numeric, 3)::float8 AS ps
        FROM dim_hours h JOIN dim_keys k ON k.id = h.key_id WHERE h.impressions <> 0 OR abs(h.position_sum) > 1e-6 ORDER BY 1, 2, 3, 4, 5`,
      ),
      days: await queryRows(
        world.db,
        `SELECT k.kind, k.key, d.country, d.language, d.day::text, d.impressions::float8
        FROM dim_days d JOIN dim_keys k ON k.id = d.key_id WHERE d.impressions <> 0 ORDER BY 1, 2, 3, 4, 5`,
      ),
      spans: await queryRows(
        world.db,
        'SELECT url_id::text, country, language, start_hour::text, end_hour::text FROM url_spans ORDER BY 1, 2, 3, 4',
      ),
      dims: await queryRows(world.db, 'SELECT kind, key, url_id::text FROM url_dimensions ORDER BY 1, 2, 3'),
      hulls: await queryRows(
        world.db,
        'SELECT kind, key, market, unit, item, first_hour::text, end_hour::text FROM dim_activity ORDER BY 1, 2, 3, 4, 5',
      ),
      gaps: await queryRows(
        world.db,
        'SELECT kind, key, market, unit, item, gap_start::text, gap_end::text FROM dim_activity_gaps ORDER BY 1, 2, 3, 4, 5, 6',
      ),
      marks: await queryRows(
        world.db,
        'SELECT kind, key, market, unit, hour::text, starts, ends FROM dim_activity_hours ORDER BY 1, 2, 3, 4, 5',
      ),
      markDays: await queryRows(
        world.db,
        'SELECT kind, key, market, unit, day::text, starts, ends FROM dim_activity_days ORDER BY 1, 2, 3, 4, 5',
      ),
    });
    const incremental = await snapshot();
    await rebuildWorld(world);
    expect(await snapshot()).toEqual(incremental);
  }, 120_000);
});
