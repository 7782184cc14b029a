// The OpenAPI fuzz suite (README "Hostile input", docs/BENCHMARKS.md "Fuzz") in `npm test`: a fixed seed and a few thousand generated
// requests, valid and hostile, over every operation of the served /openapi.json, against the
// bundled all-in-one Worker in workerd on a copy of the demo database (real PostgreSQL and Redis).
// Every response: no 5xx but 503 + Retry-After, no stack trace, documented status, `detail` on
// errors, body valid against the documented schema (Ajv, JSON Schema 2020-12), every number finite,
// every integer safe and every observation time not after the data's now. Longer runs:
// `npm run fuzz -- --requests 20000 --seed S`.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FUZZ_NOW, startStack, type Stack } from '../../scripts/lib/demo-stack';
import { propertyProblems } from '../../scripts/fuzz/check';
import { describeReport, runFuzz } from '../../scripts/fuzz/run';
import type { Keys } from '../../scripts/fuzz/generate';

const REQUESTS = 4_000;
const SEED = 20261123;
let stack: Stack;
let keys: Keys;

beforeAll(async () => {
  stack = await startStack({
    server: inject('adminDatabaseUrl').replace(/\/[^/]*$/, ''),
    redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    database: `fuzz_test_${inject('runId')}`, // global teardown drops leftovers by the run id suffix
  });
  keys = {
    full: stack.keys.find((k) => k.name === 'full')!.key,
    others: stack.keys.filter((k) => k.name !== 'full').map(({ name, key }) => ({ name, key })),
  };
}, 150_000);

afterAll(async () => {
  await stack?.dispose();
});

describe('OpenAPI fuzz', () => {
  it(`${REQUESTS} requests (seed ${SEED}) over every operation: no failures`, async () => {
    const report = await runFuzz({ base: stack.url, keys, seed: SEED, requests: REQUESTS, now: FUZZ_NOW });
    console.log(describeReport(report));
    expect(report.failures, describeReport(report)).toEqual([]);
    const doc = await (await fetch(new URL('/openapi.json', stack.url))).json();
    const operations = Object.values(doc.paths as Record<string, object>).reduce((n: number, ops) => n + Object.keys(ops).length, 0);
    expect(Object.keys(report.perOperation)).toHaveLength(operations);
    // Both sides are exercised: the sweep (every parameter x every hostile value) and the random
    // requests, where real data answers 200 and hostile input 4xx.
    expect(report.swept).toBeGreaterThan(operations * 18);
    expect(report.swept).toBeLessThan(REQUESTS);
    expect(report.byStatus[200]).toBeGreaterThan((REQUESTS - report.swept) / 3);
    expect(report.byStatus[422]).toBeGreaterThan(report.swept / 2);
    expect(report.byStatus[404]).toBeGreaterThan(0);
  }, 120_000);

  it('fails when a response breaks its documented schema', async () => {
    const doc = await (await fetch(new URL('/openapi.json', stack.url))).json();
    // The served regions body lacks this field: every 200 must now be reported.
    const ok = doc.paths['/v1/geo/regions'].get.responses['200'].content['application/json'];
    ok.schema = { allOf: [ok.schema, { required: ['no_such_field'] }] };
    const report = await runFuzz({
      base: stack.url,
      keys,
      seed: SEED,
      requests: 20,
      now: FUZZ_NOW,
      doc,
      only: ['v1GeoListRegions'],
      hostileShare: 0,
    });
    expect(report.byStatus[200]).toBe(20);
    expect(report.failures).toHaveLength(20);
    expect(report.failures[0].problems.join()).toMatch(/breaks the 200 schema: \/ must have required property 'no_such_field'/);
  }, 60_000);

  it('the property check flags unsafe integers, non-finite numbers and observation times after now', () => {
    const now = Date.parse(FUZZ_NOW);
    const body = {
      items: [{ forecast: { predicted_total_reach: 16802324996286093000, pct_next30d: 12.5 }, last_seen: '2026-11-10T13:00:00+00:00' }],
      series: [1, Infinity],
      first_seen: '2026-11-10T11:00:00+00:00',
    };
    expect(propertyProblems(body, now).sort()).toEqual([
      '/items/0/forecast/predicted_total_reach = 16802324996286093000 is not a safe integer',
      '/items/0/last_seen = 2026-11-10T13:00:00+00:00 is after now',
      '/series/1 = Infinity is not finite',
    ]);
    expect(propertyProblems({ n: 2 ** 53 - 1, x: 0.5, last_seen: FUZZ_NOW }, now)).toEqual([]);
  });
});
