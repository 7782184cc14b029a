// Public profile check: GET /public/platform-profile, POST .../bulk, GET .../query (no key).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../shared/db/raw';
import { BulkResponseSchema, ProfileResultSchema, SearchResponseSchema } from '../../functions/public/schemas';
import { at, HERALD, MUNICH, NOPROFILE, NOW, publicRecords, TINY } from '../fixtures/public';
import { seed } from '../helpers/seed';
import { createWorld, show, type World } from '../helpers/world';

let world: World;
let ipSeq = 0;
/** Each test its own client address: the per-IP limit never couples tests. */
const fresh = () => ({ 'CF-Connecting-IP': `198.51.100.${++ipSeq % 250}`, 'X-Test': String(ipSeq) });
const check = (domain: string) => world.call(`/public/platform-profile?domain=${encodeURIComponent(domain)}`, { headers: fresh() });
const bulk = (body: unknown, headers: Record<string, string> = {}) =>
  world.call('/public/platform-profile/bulk', { method: 'POST', body, headers: { ...fresh(), ...headers } });

beforeAll(async () => {
  world = await createWorld('public');
  world.setNow(NOW);
  await seed(world, publicRecords());
});

/** Naive reference: a domain's newest publications straight from articles. */
async function newest(domain: string) {
  const rows = await queryRows<{ title: string; url: string; image_url: string | null; publisher: string; first_seen_at: Date }>(
    world.db,
    'SELECT title, url, image_url, publisher, first_seen_at FROM articles WHERE domain = $1 ORDER BY first_seen_at DESC, id LIMIT 6',
    [domain],
  );
  return rows.map((r) => ({
    title: r.title,
    url: r.url,
    imageUrl: r.image_url,
    sourceLabel: r.publisher,
    publishedAt: new Date(r.first_seen_at).toISOString().replace('.000Z', '+00:00'),
  }));
}

describe('GET /public/platform-profile (happy)', () => {
  it('answers a profile with every field of the spec, newest publications first', async () => {
    const reply = await check(HERALD.domain);
    expect(reply.status, show(reply)).toBe(200);
    // Exactly the schema's members, plus the freshness every data answer carries (docs/DATA.md): null,
    // as this world holds no observations.
    const { data_as_of, ...result } = reply.body;
    expect(data_as_of).toBeNull();
    expect(ProfileResultSchema.parse(result)).toEqual(result);
    expect(result).toEqual({
      ok: true,
      domain: HERALD.domain,
      profileUrl: `https://app.example.com/publisher/${HERALD.domain}`,
      knowledgeGraphId: HERALD.kg_id,
      exists: true,
      title: HERALD.title,
      totalFollowers: '1.2M',
      recentPublications: await newest(HERALD.domain),
    });
    const pubs = reply.body.recentPublications;
    expect(pubs).toHaveLength(6);
    expect(pubs[0]).toEqual({
      title: 'Herald story 8',
      url: `https://${HERALD.domain}/story/8`,
      imageUrl: `https://${HERALD.domain}/img/8.jpg`,
      sourceLabel: 'Example Herald',
      publishedAt: at(3),
    });
    // Two stories first seen in the same hour: the article id breaks the tie.
    expect(pubs.slice(1, 3).map((p: any) => p.title)).toEqual(['Herald story 6', 'Herald story 7']);
    expect(pubs.find((p: any) => p.title === 'Herald story 5').imageUrl).toBeNull();
  });

  // Fifteen-plus spellings of the same two domains, including Unicode and punycode forms.
  it.each([
    ['herald.example.com', HERALD.domain],
    ['HERALD.EXAMPLE.COM', HERALD.domain],
    ['www.herald.example.com', HERALD.domain],
    ['https://herald.example.com', HERALD.domain],
    ['http://www.herald.example.com/', HERALD.domain],
    ['https://WWW.Herald.Example.com/news/a?b=1#c', HERALD.domain],
    ['herald.example.com.', HERALD.domain],
    ['https://herald.example.com:8443/x', HERALD.domain],
    ['herald.example.com:80', HERALD.domain],
    ['//herald.example.com/path', HERALD.domain],
    ['  herald.example.com  ', HERALD.domain],
    ['https://user:pw@herald.example.com/', HERALD.domain],
    ['HTTPS://WWW.HERALD.EXAMPLE.COM.', HERALD.domain],
    ['herald.example.com/feed.xml', HERALD.domain],
    ['herald.example.com?utm_source=x', HERALD.domain],
    [MUNICH.unicode, MUNICH.domain],
    [MUNICH.domain, MUNICH.domain],
    ['MÜNCHEN-BOTE.DE', MUNICH.domain],
    ['https://www.münchen-bote.de/artikel?id=1', MUNICH.domain],
    ['münchen-bote。de', MUNICH.domain],
    ['https://XN--MNCHEN-BOTE-THB.DE/', MUNICH.domain],
  ])('%j normalizes to %s', async (input, domain) => {
    const reply = await check(input);
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body).toMatchObject({ ok: true, domain, exists: true });
  });

  it('a publisher without a profile is exists:false with its public facts, not an error', async () => {
    const reply = await check(`https://www.${NOPROFILE.domain}/`);
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body).toEqual({
      data_as_of: null,
      ok: true,
      domain: NOPROFILE.domain,
      profileUrl: '',
      knowledgeGraphId: NOPROFILE.kg_id,
      exists: false,
      title: '',
      totalFollowers: '',
      recentPublications: await newest(NOPROFILE.domain),
    });
  });

  it('an unknown domain is exists:false with nothing else', async () => {
    const reply = await check('never-seen.example');
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body).toEqual({
      data_as_of: null,
      ok: true,
      domain: 'never-seen.example',
      profileUrl: '',
      knowledgeGraphId: '',
      exists: false,
      title: '',
      totalFollowers: '',
      recentPublications: [],
    });
  });

  it('formats followers for people: 999, 12.3K', async () => {
    expect((await check(TINY.domain)).body.totalFollowers).toBe('999');
    expect((await check(MUNICH.domain)).body.totalFollowers).toBe('12.3K');
  });

  it('matches the naive reference for any decoration of any known domain (property)', async () => {
    const domains = [HERALD.domain, MUNICH.domain, TINY.domain, NOPROFILE.domain, 'never-seen.example'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...domains),
        fc.constantFrom('', 'http://', 'https://', 'HTTPS://', '//'),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom('', '/', '/a/b?c=d', ':8080/x', '#top'),
        fc.boolean(),
        async (domain, scheme, www, upper, tail, dot) => {
          let host = `${www ? 'www.' : ''}${domain}${dot ? '.' : ''}`;
          if (upper) host = host.toUpperCase();
          const reply = await check(`${scheme}${host}${tail}`);
          expect(reply.status, show(reply)).toBe(200);
          expect(reply.body.domain).toBe(domain);
          const [publisher] = await queryRows<{ profile_title: string | null }>(
            world.db,
            'SELECT profile_title FROM publishers WHERE domain = $1',
            [domain],
          );
          expect(reply.body.exists).toBe(Boolean(publisher?.profile_title));
          expect(reply.body.recentPublications).toEqual(await newest(domain));
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('GET /public/platform-profile (errors)', () => {
  it('missing domain is 422 in the spec shape', async () => {
    const reply = await world.call('/public/platform-profile', { headers: fresh() });
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'domain'], type: 'missing' })]);
  });

  it.each(['', '   ', 'localhost', 'not a domain', '1.2.3.4', 'http://[::1]/', '-bad-.com', 'a..com', `${'x'.repeat(300)}.com`])(
    '%j is 422',
    async (value) => {
      const reply = await check(value);
      expect(reply.status, show(reply)).toBe(422);
      expect(reply.body.detail).toEqual([
        { loc: ['query', 'domain'], msg: expect.stringMatching(/^Not a domain or URL/), type: 'value_error' },
      ]);
    },
  );

  it('an over-long value is 422, not a 500', async () => {
    const reply = await check(`https://example.com/${'a'.repeat(3_000)}`);
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail[0].loc).toEqual(['query', 'domain']);
  });
});

describe('POST /public/platform-profile/bulk', () => {
  it('one entry answers like the single check, with index, input and duplicateOf', async () => {
    const reply = await bulk({ domains: [HERALD.domain] });
    expect(reply.status, show(reply)).toBe(200);
    const { data_as_of, ...bulkBody } = reply.body;
    expect(data_as_of).toBeNull();
    expect(BulkResponseSchema.parse(bulkBody)).toEqual(bulkBody);
    const { data_as_of: _, ...single } = (await check(HERALD.domain)).body;
    expect(reply.body.results).toEqual([{ ...single, index: 0, input: HERALD.domain, duplicateOf: null }]);
    expect(reply.body.summary).toEqual({ requested: 1, checked: 1, duplicates: 0, invalid: 0, exists: 1 });
  });

  it('keeps request order, flags duplicates by normalized domain and reports invalid entries in place', async () => {
    const domains = [
      'https://www.herald.example.com/x',
      'not a domain',
      NOPROFILE.domain,
      'HERALD.example.com',
      MUNICH.unicode,
      MUNICH.domain,
      '',
    ];
    const reply = await bulk({ domains });
    expect(reply.status, show(reply)).toBe(200);
    const r = reply.body.results;
    expect(r.map((e: any) => [e.index, e.input, e.ok, e.domain, e.duplicateOf ?? null])).toEqual([
      [0, domains[0], true, HERALD.domain, null],
      [1, 'not a domain', false, null, null],
      [2, NOPROFILE.domain, true, NOPROFILE.domain, null],
      [3, 'HERALD.example.com', true, HERALD.domain, 0],
      [4, MUNICH.unicode, true, MUNICH.domain, null],
      [5, MUNICH.domain, true, MUNICH.domain, 4],
      [6, '', false, null, null],
    ]);
    expect(r[1].error).toEqual({ msg: expect.stringMatching(/^Not a domain or URL/), type: 'value_error' });
    expect(r[3].recentPublications).toEqual(r[0].recentPublications);
    expect(r[2].exists).toBe(false);
    expect(reply.body.summary).toEqual({ requested: 7, checked: 3, duplicates: 2, invalid: 2, exists: 2 });
  });

  it('100 entries are answered, in order', async () => {
    const domains = Array.from({ length: 100 }, (_, i) => (i % 4 === 0 ? HERALD.domain : `d${i}.example.com`));
    const reply = await bulk({ domains }, { 'CF-Connecting-IP': '203.0.113.100' });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.results).toHaveLength(100);
    expect(reply.body.results.map((e: any) => e.index)).toEqual(domains.map((_, i) => i));
    expect(reply.body.results.map((e: any) => e.domain)).toEqual(domains);
    expect(reply.body.summary).toMatchObject({ requested: 100, checked: 76, duplicates: 24, exists: 1 });
  });

  it.each([
    [0, 'too_short'],
    [101, 'too_long'],
  ])('%i entries is 422', async (n, type) => {
    const reply = await bulk({ domains: Array.from({ length: n }, (_, i) => `d${i}.example.com`) });
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'domains'], type })]);
  });

  it.each([
    ['no body', undefined],
    ['domains missing', {}],
    ['domains not an array', { domains: 'example.com' }],
    ['a number entry', { domains: [1] }],
  ])('%s is 422', async (_, body) => {
    const reply = await world.call('/public/platform-profile/bulk', {
      method: 'POST',
      headers: { ...fresh(), 'content-type': 'application/json' },
      body: body === undefined ? '' : body,
    });
    expect(reply.status, show(reply)).toBe(422);
    expect(Array.isArray(reply.body.detail)).toBe(true);
  });

  it('malformed JSON is 422', async () => {
    const reply = await bulk('{"domains": [', { 'content-type': 'application/json' });
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])(
    'Content-Type %s is 415 with a clear detail',
    async (type) => {
      const reply = await bulk(JSON.stringify({ domains: [HERALD.domain] }), { 'content-type': type });
      expect(reply.status, show(reply)).toBe(415);
      expect(reply.body.detail).toMatch(/Content-Type must be application\/json/);
    },
  );

  it('accepts application/json with a charset', async () => {
    const reply = await bulk(JSON.stringify({ domains: [HERALD.domain] }), { 'content-type': 'application/json; charset=utf-8' });
    expect(reply.status, show(reply)).toBe(200);
  });

  it('an oversized body is 413 before it is parsed', async () => {
    const reply = await bulk({ domains: [`${'a'.repeat(70_000)}.com`] });
    expect(reply.status, show(reply)).toBe(413);
    expect(reply.body.detail).toMatch(/Body larger than 65536 bytes/);
  });
});

describe('GET /public/platform-profile/query', () => {
  const query = (q: string, extra = '') =>
    world.call(`/public/platform-profile/query?q=${encodeURIComponent(q)}${extra}`, { headers: fresh() });

  it('finds by profile title or publisher name, best match first, accents and case ignored', async () => {
    const reply = await query('  MÜNCHNER   bote ');
    expect(reply.status, show(reply)).toBe(200);
    const { data_as_of, ...search } = reply.body;
    expect(data_as_of).toBeNull();
    expect(SearchResponseSchema.parse(search)).toEqual(search);
    expect(reply.body.q).toBe('MÜNCHNER bote');
    expect(reply.body.results[0]).toMatchObject({
      domain: MUNICH.domain,
      exists: true,
      title: MUNICH.title,
      totalFollowers: '12.3K',
      match: { reason: 'publisher_name', matched: MUNICH.title, score: 1 },
    });
    expect((await query('munchner')).body.results[0].match).toMatchObject({ reason: 'publisher_name', score: 0.9 });
  });

  it('finds by domain, including a URL and a name without spaces', async () => {
    expect((await query('https://www.herald.example.com/x')).body.results[0]).toMatchObject({
      domain: HERALD.domain,
      match: { reason: 'domain', score: 0.95 },
    });
    const byLabel = (await query('tinynews')).body.results;
    expect(byLabel).toEqual([]);
    expect((await query('tiny-news')).body.results[0]).toMatchObject({ domain: TINY.domain, match: { reason: 'domain', score: 0.9 } });
  });

  it('finds by entity: publishers whose articles mention it, more mentions first, profiles only', async () => {
    const reply = await query('lionel messi');
    expect(reply.status, show(reply)).toBe(200);
    const rows = await queryRows<{ domain: string; n: number }>(
      world.db,
      `SELECT a.domain, count(*)::int AS n FROM entities e JOIN article_entities ae ON ae.entity_id = e.id JOIN articles a ON a.id = ae.url_id
       JOIN publishers p ON p.domain = a.domain AND p.profile_title IS NOT NULL
       WHERE e.normalized_name = 'lionel messi' GROUP BY a.domain ORDER BY n DESC, max(p.followers) DESC`,
      [],
    );
    expect(reply.body.results.map((r: any) => r.domain)).toEqual(rows.map((r) => r.domain));
    const max = Math.max(...rows.map((r) => r.n));
    for (const [i, row] of rows.entries()) {
      expect(reply.body.results[i].match).toMatchObject({
        reason: 'entity',
        matched: 'Lionel Messi',
        score: Math.round((0.5 + (0.2 * row.n) / max) * 1000) / 1000,
      });
    }
    expect((await query('/m/06qjgc')).body.results.map((r: any) => r.domain)).toEqual(rows.map((r) => r.domain));
  });

  it('finds by keyword in titles, below name matches, and says every reason', async () => {
    const reply = await query('tram');
    const domains = reply.body.results.map((r: any) => r.domain);
    expect(domains).toEqual([TINY.domain, MUNICH.domain]);
    expect(reply.body.results[0].match).toMatchObject({ reason: 'publisher_name', score: 0.8, reasons: ['publisher_name', 'keyword'] });
    expect(reply.body.results[1].match).toMatchObject({ reason: 'keyword', matched: 'tram' });
    expect(domains).not.toContain(NOPROFILE.domain);
  });

  it('bounds the result with limit', async () => {
    const reply = await query('example', '&limit=1');
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.results).toHaveLength(1);
    expect(reply.body.results[0].domain).toBe(HERALD.domain);
  });

  it('treats LIKE wildcards as text', async () => {
    expect((await query('%%')).body.results).toEqual([]);
    expect((await query('__')).body.results).toEqual([]);
  });

  it.each([[''], [' '], ['a'], [' a '], ['\t\tb  ']])('q=%j is 422 (at least 2 characters after trimming)', async (q) => {
    const reply = await query(q);
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail[0]).toMatchObject({ loc: ['query', 'q'] });
  });

  it('q missing, too long, or limit out of range is 422', async () => {
    for (const path of [
      '/public/platform-profile/query',
      `/public/platform-profile/query?q=${'a'.repeat(201)}`,
      '/public/platform-profile/query?q=ab&limit=0',
      '/public/platform-profile/query?q=ab&limit=26',
    ]) {
      const reply = await world.call(path, { headers: fresh() });
      expect(reply.status, `${path}: ${show(reply)}`).toBe(422);
    }
  });
});
