// The document as a contract, in `npm test` (docs/CONTRACT.md "What `npm test` checks"), against the bundled all-in-one Worker on a
// copy of the demo database (real PostgreSQL and Redis), as the fuzz suite runs:
// - Redocly (`recommended`) and Spectral (`spectral:oas`) find nothing in the served document;
// - the contract suite Portman generates from it (the document's own examples, no per-route
//   overrides) passes 100% under Newman: 2xx, content type, JSON body, response schema, required headers;
// - the demo's well-known ids, which those examples are, do not depend on the demo's "now"
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startStack, type Stack } from '../../scripts/lib/demo-stack';
import { runContractSuite } from '../../scripts/contract/run';
import { lintDocument } from '../../scripts/contract/lint';
import { DEMO, DEMO_SEED, seededUuid } from '../../shared/schemas/demo-ids';

let stack: Stack;
let doc: string;

beforeAll(async () => {
  stack = await startStack({
    server: inject('adminDatabaseUrl').replace(/\/[^/]*$/, ''),
    redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    database: `fuzz_contract_${inject('runId')}`, // global teardown drops leftovers by the run id suffix
  });
  doc = await (await fetch(new URL('/openapi.json', stack.url))).text();
}, 150_000);

afterAll(async () => {
  await stack?.dispose();
});

describe('the served OpenAPI document', () => {
  it('Redocly (recommended) and Spectral (spectral:oas): 0 errors, 0 warnings', async () => {
    const problems = await lintDocument(doc);
    expect(problems, JSON.stringify(problems.slice(0, 10), null, 1)).toEqual([]);
  }, 120_000);

  it('the linters do report problems (a document without tags, license and operationIds)', async () => {
    const broken = JSON.parse(doc);
    delete broken.tags;
    delete broken.info.license;
    delete broken.paths['/v1/usage'].get.operationId;
    const rules = new Set((await lintDocument(JSON.stringify(broken))).map((p) => `${p.tool}:${p.rule}`));
    expect([...rules]).toEqual(
      expect.arrayContaining([
        'redocly:info-license',
        'redocly:operation-operationId',
        'spectral:operation-tag-defined',
        'spectral:operation-operationId',
      ]),
    );
  }, 120_000);

  it("the generated contract suite passes 100% with the document's own examples", async () => {
    const full = stack.keys.find((k) => k.name === 'full')!.key;
    const report = await runContractSuite(stack.url, full);
    const operations = Object.values(JSON.parse(doc).paths as Record<string, object>).reduce(
      (n: number, ops) => n + Object.keys(ops).length,
      0,
    );
    expect(report.failures, JSON.stringify(report.failures.slice(0, 10), null, 1)).toEqual([]);
    expect(report.requests).toBe(operations);
    expect(report.statuses).toEqual({ 200: operations });
    // Five checks an operation at least (2xx, content type, JSON body, schema, a required header), fewer for non-JSON ones.
    expect(report.assertions).toBeGreaterThan(operations * 5);
  }, 240_000);

  it('fails where the API breaks the document (a required header it does not send, a field it does not have)', async () => {
    const broken = JSON.parse(doc);
    const languages = broken.paths['/v1/geo/languages'].get.responses['200'];
    languages.headers['X-Not-Sent'] = { description: 'test', required: true, schema: { type: 'string' } };
    const regions = broken.paths['/v1/geo/regions'].get.responses['200'].content['application/json'];
    regions.schema = { allOf: [regions.schema, { required: ['no_such_field'] }] };
    const report = await runContractSuite(stack.url, stack.keys.find((k) => k.name === 'full')!.key, JSON.stringify(broken));
    const failed = new Set(report.failures.map((f) => f.request.split(' ')[1].split('?')[0]));
    expect([...failed].sort()).toEqual(['/v1/geo/languages', '/v1/geo/regions']);
    expect(report.failures.find((f) => f.request.includes('/languages'))!.test).toMatch(/X-Not-Sent is present/);
    expect(report.failures.find((f) => f.request.includes('/regions'))!.test).toMatch(/Schema is valid/);
  }, 240_000);
});

describe('the demo ids the examples name', () => {
  it('are derived from the seed, stable and UUID-shaped', () => {
    expect(DEMO.projectId).toBe(seededUuid(DEMO_SEED, 'project:Demo newsroom'));
    expect(seededUuid(DEMO_SEED, 'x')).toBe(seededUuid(DEMO_SEED, 'x'));
    expect(seededUuid(DEMO_SEED + 1, 'x')).not.toBe(seededUuid(DEMO_SEED, 'x'));
    for (const id of [DEMO.projectId, DEMO.listId, DEMO.mentionListId, DEMO.themeId, DEMO.topicId, DEMO.trendId, DEMO.urlId]) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it('the generator emits the same theme, topic, trend, entity and first article for another "now"', async () => {
    // `npm start` loads the demo at the real time; the suite above at the fuzz "now".
    const child = spawn(
      join(import.meta.dirname, '../../node_modules/.bin/tsx'),
      ['scripts/generate/index.ts', '--scale', 'demo', '--seed', String(DEMO_SEED), '--now', '2027-03-15T09:00:00.000Z'],
      { cwd: join(import.meta.dirname, '../..'), stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const seen = new Set<string>();
    for await (const line of createInterface({ input: child.stdout })) {
      const record = JSON.parse(line) as { type: string; id?: string; name?: string };
      if (record.type === 'article') {
        seen.add(`article:${record.id}`);
        break; // the first article is the example one
      }
      seen.add(`${record.type}:${record.id ?? record.name}`);
    }
    child.kill();
    expect([...seen]).toEqual(
      expect.arrayContaining([
        `hierarchy_node:${DEMO.themeId}`,
        `hierarchy_node:${DEMO.topicId}`,
        `trend:${DEMO.trendId}`,
        `entity:${DEMO.entityName}`,
        `article:${DEMO.urlId}`,
      ]),
    );
  }, 60_000);
});
