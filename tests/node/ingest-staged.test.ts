// A bulk load's observations are staged by its batches and merged at its end
// (shared/ingest/bulk/staged-observations.ts): the last line of a key wins across batches, the summary
// counts what the merge changed in the stored hours, the primary key comes back after a first load,
// and hours a load that died left staged are merged by the next run. The first load stages by COPY
// (scripts/lib/copy-from.ts), the second by INSERT.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupsDiffer } from '../../scripts/bench/rollups-exact';
import { copyFromClient } from '../../scripts/lib/copy-from';
import { firstLines } from '../../scripts/bench/generate';
import { type CopyFrom, ingest, type IngestSummary, type RecordOf } from '../../shared/ingest';
import { templateCopy } from './template-copy';

let db: Awaited<ReturnType<typeof templateCopy>>;
let lines: string[];

type Hour = RecordOf<'observation'>;

const hours = () => lines.map((l) => JSON.parse(l)).filter((r): r is Hour => r.type === 'observation');
const load = (
  input: string[],
  rollups: 'incremental' | 'rebuild-at-end',
  batchSize?: number,
  copyFrom?: CopyFrom,
): Promise<IngestSummary> => ingest(db.client, input, { rollups, batchSize, copyFrom, now: new Date('2026-03-01T12:00:00Z') });
const stored = async (h: Hour) =>
  (
    await db.client.query(
      `SELECT impressions, position FROM observations WHERE url_id = $1 AND country = $2 AND language = $3 AND hour = $4`,
      [h.url_id, h.country, h.language, h.hour],
    )
  ).rows;
const count = async (table: string) => (await db.client.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;
const primaryKey = async () =>
  (
    await db.client.query(
      `SELECT conname, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = 'observations'::regclass AND contype = 'p'`,
    )
  ).rows;

beforeAll(async () => {
  db = await templateCopy('ingest_staged');
  lines = await firstLines('test', 3000);
}, 60_000);

afterAll(() => db?.drop());

describe('a bulk load', () => {
  let first: IngestSummary;
  let corrected: Hour;
  let keyBefore: unknown;
  const copies: string[] = [];

  beforeAll(async () => {
    keyBefore = await primaryKey();
    const [a, b] = hours();
    corrected = { ...a, impressions: a.impressions + 1000 };
    // Small batches: the correction and the repeat reach the stage from later batches than the originals.
    const copy = copyFromClient(db.client);
    const copyFrom: CopyFrom = (statement, data) => {
      copies.push(statement);
      return copy(statement, data);
    };
    first = await load([...lines, JSON.stringify(corrected), JSON.stringify(b)], 'rebuild-at-end', 500, copyFrom);
  }, 120_000);

  it('keeps the last line of a repeated hour, across batches', async () => {
    expect(first.skipped, JSON.stringify(first.errors)).toBe(0);
    expect(copies.length).toBeGreaterThan(1);
    expect(copies.filter((s) => s.startsWith('COPY observations_staged ')).length).toBeGreaterThan(1);
    expect(await stored(corrected)).toEqual([{ impressions: corrected.impressions, position: corrected.position }]);
    expect(await count('observations_staged')).toBe(0);
  });

  it('counts the stored hours it inserted; a repeated hour once', async () => {
    const n = hours().length;
    expect(first.byType.observation).toEqual({ loaded: n + 2, inserted: n, updated: 0, unchanged: 2 });
    expect(await count('observations')).toBe(n);
  });

  it("leaves observations' primary key as migrated, and the roll-ups exact", async () => {
    expect(await primaryKey()).toEqual(keyBefore);
    expect(await rollupsDiffer(db.client)).toEqual([]);
  });

  it('into stored hours: changes what differs, inserts what is new, counts the rest unchanged', async () => {
    const [a, b, c] = hours();
    const fresh = { ...c, hour: '2025-01-01T00:00:00Z' };
    const summary = await load(
      [{ ...a, impressions: a.impressions + 7 }, b, fresh].map((h) => JSON.stringify(h)),
      'rebuild-at-end',
    );
    expect(summary.byType.observation).toEqual({ loaded: 3, inserted: 1, updated: 1, unchanged: 1 });
    expect(await stored(a)).toEqual([{ impressions: a.impressions + 7, position: a.position }]);
    expect(await stored(fresh)).toEqual([{ impressions: fresh.impressions, position: fresh.position }]);
    expect(await primaryKey()).toEqual(keyBefore);
    expect(await rollupsDiffer(db.client)).toEqual([]);
  }, 60_000);
});

describe("an article's text through COPY", () => {
  it('is stored exactly as the line gave it: backslashes, tabs, line breaks, \\N and JSON escapes included', async () => {
    const source = lines.map((l) => JSON.parse(l)).find((r) => r.type === 'article');
    const odd = 'a\\b\tc\nd\re \\N "q" \u00e9\u{1F600} \\\\t';
    const article = {
      ...source,
      id: '00000000-0000-4000-8000-00000000c0b1',
      url: `https://copy.example.com/${encodeURIComponent(odd)}`,
      title: odd,
      summary: `${odd}\n${odd}`,
      body: '\\.',
      meta: { ...source.meta, meta_title: odd, headline: `${odd}\\u0041` },
      categories: [],
      entities: [],
    };
    const copies: string[] = [];
    const copy = copyFromClient(db.client);
    const summary = await load([JSON.stringify(article)], 'rebuild-at-end', undefined, (statement, data) => {
      copies.push(statement);
      return copy(statement, data);
    });
    expect(summary.errors).toEqual([]);
    expect(copies).toContain('COPY articles_input FROM STDIN');
    const { rows } = await db.client.query(`SELECT url, title, summary, body, meta FROM articles WHERE id = $1`, [article.id]);
    expect(rows).toEqual([{ url: article.url, title: odd, summary: `${odd}\n${odd}`, body: '\\.', meta: article.meta }]);
  }, 60_000);
});

describe('a line the database refuses in a COPY', () => {
  it('is reported with its line number, and the rest of its batch lands', async () => {
    const [a, b, c] = hours();
    const input = [
      { ...a, impressions: a.impressions + 11 },
      { ...b, position: 1e300 }, // beyond PostgreSQL's real
      { ...c, impressions: c.impressions + 13 },
    ].map((h) => JSON.stringify(h));
    const summary = await load(input, 'rebuild-at-end', undefined, copyFromClient(db.client));
    expect(summary.errors).toEqual([{ line: 2, reason: expect.stringMatching(/^database: .*out of range/) }]);
    expect(summary.byType.observation).toEqual({ loaded: 2, inserted: 0, updated: 2, unchanged: 0 });
    expect(await stored(a)).toEqual([{ impressions: a.impressions + 11, position: a.position }]);
    expect(await stored(c)).toEqual([{ impressions: c.impressions + 13, position: c.position }]);
    expect(await rollupsDiffer(db.client)).toEqual([]);
  }, 60_000);
});

describe('hours a bulk load that died left staged', () => {
  it('are merged by the next run before its own lines, and counted as derived', async () => {
    const [a] = hours();
    await db.client.query(
      `INSERT INTO observations_staged (url_id, country, language, hour, impressions, position) VALUES ($1, $2, $3, $4, $5, $6)`,
      [a.url_id, a.country, a.language, a.hour, 4242, 3],
    );
    const summary = await load([JSON.stringify({ type: 'language', code: 'zz', name: 'Zedish' })], 'incremental');
    expect(summary.derived.observations).toEqual({ inserted: 0, updated: 1, deleted: 0 });
    expect(await stored(a)).toEqual([{ impressions: 4242, position: 3 }]);
    expect(await count('observations_staged')).toBe(0);
  });
});
