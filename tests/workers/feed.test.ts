// GET /v2/feed, /v2/live and /v2/feed/{url_id}: exact items over the articles fixture, every
// parameter and error, scope (restricted keys, other markets, category plans), cursors, caching, ETag/304.
import { createExecutionContext, createScheduledController } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../functions/index';
import { createKey } from '../../shared/admin/keys';
import { queryRows } from '../../shared/db/raw';
import { FeedPageSchema, LivePageSchema, ProfilesSchema } from '../../functions/feed/schemas';
import {
  articleAndTrendRecords,
  at,
  CUP_FINAL,
  ELECTION,
  FRENCH,
  MESSI,
  NOW,
  OLD,
  SOCCER,
  STARTUP,
  TENNIS,
  UNTAGGED,
} from '../fixtures/articles';
import { seed } from '../helpers/seed';
import { createWorld, show, type Tenant, type World } from '../helpers/world';

let world: World;
let full: Tenant;
let restricted: Tenant;
let limited: Tenant;
let other: Tenant;
let internal: string;

const TREND = CUP_FINAL;

beforeAll(async () => {
  world = await createWorld('feed');
  world.setNow(NOW);
  await seed(world, articleAndTrendRecords());
  full = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
  restricted = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] }, { countries: ['US'] });
  limited = await world.tenant({ plan: 'grow', countries: ['US', 'GB', 'DE'], categories: ['/Sports'] });
  other = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
  internal = await world.internalKey(['US', 'GB', 'DE']);
}, 60_000);

const feed = (query = '', key = full.key, headers: Record<string, string> = {}) => world.call(`/v2/feed${query}`, { key, headers });
const keys = (reply: { body: any }) => reply.body.items.map((i: any) => `${i.url_id.slice(-2)}/${i.country}/${i.language}`);
const short = (id: string, country: string, language: string) => `${id.slice(-2)}/${country}/${language}`;

describe('GET /v2/feed (happy)', () => {
  it('lists every in-scope profile by impressions_24h, with exact items', async () => {
    const reply = await feed();
    expect(reply.status, show(reply)).toBe(200);
    expect(FeedPageSchema.safeParse(reply.body).success, JSON.stringify(FeedPageSchema.safeParse(reply.body).error?.issues)).toBe(true);
    // 24h ending 13:00: SOCCER us/en 400, ELECTION us/es 300, STARTUP 140, TENNIS 120, ELECTION de 10, UNTAGGED 5; OLD and
    // GB soccer 0 (ties by url_id descending). FRENCH is outside the project's markets.
    expect(keys(reply)).toEqual([
      short(SOCCER, 'us', 'en'),
      short(ELECTION, 'us', 'es'),
      short(STARTUP, 'de', 'de'),
      short(TENNIS, 'us', 'en'),
      short(ELECTION, 'de', 'de'),
      short(UNTAGGED, 'us', 'en'),
      short(OLD, 'us', 'en'),
      short(SOCCER, 'gb', 'en'),
    ]);
    expect(reply.body).toMatchObject({ total: 8, limit: 50, offset: 0, next_cursor: null });
    const soccer = reply.body.items[0];
    expect(soccer).toMatchObject({
      url_id: SOCCER,
      url: 'https://goal.example.com/story/1',
      domain: 'goal.example.com',
      country: 'us',
      language: 'en',
      title: 'Soccer final thriller',
      publisher: 'GOAL',
      first_seen: at(30),
      last_seen: at(19),
      lifespan: '11:00:00',
      avg_position: 2,
      content_language: 'en',
      content_language_fit: true,
      date_published: at(31),
      date_modified: null,
      article_meta: { meta_title: 'Soccer final thriller | goal.example.com', section: 'Top' },
      categories: [{ name: '/Sports/Soccer', confidence: 0.9 }],
      trend: { trend_id: TREND, name: 'Cup final', semantic_type: 'event_based', key_entities: ['Lionel Messi'], key_topics: ['soccer'] },
      entities: [
        { kg_id: MESSI.kg_id, name: 'Lionel Messi', type: 'person' },
        { kg_id: null, name: 'Buenos Aires', type: 'place' },
      ],
      images: [],
      markdown_content: null,
      rss_feeds: null,
    });
    expect(soccer.impressions).toEqual({
      last_1h: { current: 0, previous: 0, delta_pct: null },
      last_24h: { current: 400, previous: 700, delta_pct: -42.9 },
      last_7d: { current: 1100, previous: null, delta_pct: null },
      last_30d: { current: 1100, previous: null, delta_pct: null },
      breakdown: {
        hourly_24h: [100, 100, 100, 100, ...Array(20).fill(0)],
        daily_30d: [...Array(28).fill(0), 1100, 0],
      },
    });
    expect(reply.body.items.find((i: any) => i.url_id === TENNIS).trend).toBeNull();
    expect(reply.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
  });

  it.each([
    ['impressions_1h', 'desc'],
    ['impressions_24h', 'asc'],
    ['impressions_7d', 'desc'],
    ['impressions_30d', 'asc'],
    ['first_seen', 'desc'],
    ['last_seen', 'asc'],
    ['avg_position', 'asc'],
    ['derived', 'desc'],
  ])('sort_by=%s sort_order=%s orders items by that key, ties by url_id/country/language', async (sortBy, order) => {
    const reply = await feed(`?sort_by=${sortBy}&sort_order=${order}`);
    expect(reply.status, show(reply)).toBe(200);
    const value = (i: any) => {
      switch (sortBy) {
        case 'first_seen':
        case 'last_seen':
          return Date.parse(i[sortBy]);
        case 'avg_position':
          return i.avg_position;
        case 'derived':
          return (
            5040 * i.impressions.last_1h.current +
            210 * i.impressions.last_24h.current +
            30 * i.impressions.last_7d.current +
            7 * i.impressions.last_30d.current
          );
        default:
          return i.impressions[`last_${sortBy.split('_')[1]}`].current;
      }
    };
    const sign = order === 'asc' ? 1 : -1;
    const items = reply.body.items;
    expect(items).toHaveLength(8);
    for (let n = 1; n < items.length; n++) {
      const a = items[n - 1];
      const b = items[n];
      const cmp =
        Math.sign(value(b) - value(a)) ||
        Math.sign(`${b.url_id}${b.country}${b.language}` > `${a.url_id}${a.country}${a.language}` ? 1 : -1);
      expect(cmp, `${sortBy} ${order} at ${n}`).toBe(sign);
    }
  });

  it('period sets date_from and defaults the sort to derived; custom uses both dates', async () => {
    const day = await feed('?period=24h');
    expect(day.status, show(day)).toBe(200);
    // Seen in the last 24 h (last_seen after 12:30 yesterday): all but OLD (GB soccer's last hour ends 13:00 yesterday).
    expect(day.body.total).toBe(7);
    // derived: SOCCER us 210*400 + 30*1100 + 7*1100 = 124700 beats ELECTION us 210*300 + 30*300 + 7*300 = 74100.
    expect(keys(day).slice(0, 2)).toEqual([short(SOCCER, 'us', 'en'), short(ELECTION, 'us', 'es')]);
    const hourly = await feed('?period=1h');
    expect(keys(hourly)).toEqual([]);
    const custom = await feed(`?period=custom&date_from=${encodeURIComponent(at(26))}&date_to=${encodeURIComponent(at(24))}`);
    expect(keys(custom).sort()).toEqual([short(SOCCER, 'gb', 'en'), short(SOCCER, 'us', 'en')].sort());
    const ignored = await feed(`?period=1h&date_to=${encodeURIComponent(at(40))}`);
    expect(ignored.body.total, 'date_to is ignored with a non-custom period').toBe(0);
  });

  it('country, lang, category hierarchy, entity and match filter', async () => {
    expect(keys(await feed('?country=de&sort_by=first_seen'))).toEqual([short(STARTUP, 'de', 'de'), short(ELECTION, 'de', 'de')]);
    expect(keys(await feed('?lang=es'))).toEqual([short(ELECTION, 'us', 'es')]);
    expect((await feed('?category=/Sports')).body.total, '/Sports covers /Sports/Soccer and /Sports/Tennis').toBe(3);
    expect((await feed('?category=/Sport')).body.total, 'whole segments only').toBe(0);
    expect((await feed('?category=/sports')).body.total, 'case-sensitive').toBe(0);
    expect((await feed('?category=/Sports;/Tech')).body.total).toBe(4);
    expect((await feed('?category=/Sports;/News&match=all')).body.total, 'TENNIS is under both').toBe(1);
    expect(keys(await feed(`?entity=${encodeURIComponent(MESSI.kg_id)}`))).toEqual([short(SOCCER, 'us', 'en'), short(SOCCER, 'gb', 'en')]);
    expect((await feed('?entity=%20lionel%20MESSI%20')).body.total).toBe(2);
    expect((await feed(`?entity=${encodeURIComponent(`${MESSI.kg_id};Buenos Aires`)}&match=all`)).body.total).toBe(2);
    expect((await feed(`?entity=${encodeURIComponent(`${MESSI.kg_id};Nobody`)}&match=all`)).body.total).toBe(0);
  });

  it('offset and limit page through the same order', async () => {
    const all = keys(await feed());
    const page = await feed('?limit=2&offset=3');
    expect(keys(page)).toEqual(all.slice(3, 5));
    expect(page.body).toMatchObject({ total: 8, limit: 2, offset: 3 });
    expect(page.body.next_cursor).toEqual(expect.any(String));
  });

  it('include_markdown fills markdown_content', async () => {
    const reply = await feed('?include_markdown=true&limit=1');
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.items[0]).toHaveProperty('markdown_content');
    expect(reply.headers.get('x-aggregate-cache'), 'markdown answers are never cached').toBeNull();
  });

  it('concurrent identical misses compute once; the rest share or hit the cached answer (an internal key is told how)', async () => {
    const replies = await Promise.all(Array.from({ length: 12 }, () => feed('?limit=3&sort_by=last_seen&lang=en', internal)));
    for (const reply of replies) expect(reply.status, show(reply)).toBe(200);
    const outcomes = replies.map((r) => r.headers.get('x-aggregate-cache'));
    expect(outcomes.filter((o) => o === 'miss')).toHaveLength(1);
    expect(
      outcomes.every((o) => o === 'miss' || o === 'shared' || o === 'hit'),
      outcomes.join(),
    ).toBe(true);
    expect(new Set(replies.map((r) => r.text)).size).toBe(1);
    const again = await feed('?limit=3&sort_by=last_seen&lang=en', internal);
    expect(again.headers.get('x-aggregate-cache')).toBe('hit');
    // A project key is never told whether someone asked the same question a moment ago (docs/SECURITY.md "Tenants").
    expect((await feed('?limit=3&sort_by=last_seen&lang=en')).headers.get('x-aggregate-cache')).toBeNull();
  });
});

describe('cursor paging', () => {
  it('iterates every profile exactly once, with next_cursor and Link rel="next"', async () => {
    const all = keys(await feed('?sort_by=derived'));
    const seen: string[] = [];
    let url = '/v2/feed?sort_by=derived&limit=3';
    for (let n = 0; n < 10; n++) {
      const reply = await world.call(url, { key: full.key });
      expect(reply.status, show(reply)).toBe(200);
      seen.push(...keys(reply));
      expect(reply.body.total).toBe(8);
      if (!reply.body.next_cursor) {
        expect(reply.headers.get('link')).toBeNull();
        break;
      }
      const link = reply.headers.get('link')!;
      expect(link).toMatch(/^<\/v2\/feed\?.*cursor=.*>; rel="next"$/);
      url = link.slice(1, link.indexOf('>'));
    }
    expect(seen).toEqual(all);
  });

  it('refuses tampered, foreign and mismatched cursors with 400', async () => {
    const first = await feed('?limit=2');
    const cursor: string = first.body.next_cursor;
    const [body, mac] = cursor.split('.');
    const flipped = `${body.slice(0, -2)}${body.endsWith('A') ? 'B' : 'A'}${body.slice(-1)}.${mac}`;
    for (const [query, key, why] of [
      [`?limit=2&cursor=${flipped}`, full.key, 'signature'],
      [`?limit=2&cursor=garbage`, full.key, 'malformed'],
      [`?limit=2&cursor=${cursor}`, other.key, 'another query'],
      [`?limit=2&country=us&cursor=${cursor}`, full.key, 'another query'],
      [`?limit=2&sort_by=first_seen&cursor=${cursor}`, full.key, 'another query'],
    ] as const) {
      const reply = await feed(query, key);
      expect(reply.status, show(reply)).toBe(400);
      expect(reply.body.detail).toContain(why);
    }
    const withOffset = await feed(`?limit=2&offset=2&cursor=${cursor}`);
    expect(withOffset.status, show(withOffset)).toBe(422);
  });

  it('refuses expired cursors and cursors of another version; the same cursor still works within 24 h', async () => {
    const cursor: string = (await feed('?limit=2')).body.next_cursor;
    world.setNow('2026-11-21T12:00:00.000Z');
    expect((await feed(`?limit=2&cursor=${cursor}`)).status, 'within 24 h').toBe(200);
    world.setNow('2026-11-21T12:31:00.000Z');
    const expired = await feed(`?limit=2&cursor=${cursor}`);
    expect(expired.status, show(expired)).toBe(400);
    expect(expired.body.detail).toContain('expired');
    world.setNow(NOW);
    const { signCursor } = await import('../../shared/http/cursor');
    const [body] = cursor.split('.');
    const payload = JSON.parse(atob(body.replace(/-/g, '+').replace(/_/g, '/')));
    const resigned = await signCursor(world.env.CURSOR_SECRET!, payload);
    expect((await feed(`?limit=2&cursor=${resigned}`)).status, 'the same payload signed again is valid').toBe(200);
    const future = await signCursor(world.env.CURSOR_SECRET!, { ...payload, v: 3 });
    const refused = await feed(`?limit=2&cursor=${future}`);
    expect(refused.status, show(refused)).toBe(400);
    expect(refused.body.detail).toContain('version 3 is not supported');
  });

  it.each([
    ['no CURSOR_SECRET', { CURSOR_SECRET: '' }],
    ['the public dev value outside development', { ENVIRONMENT: '' }],
  ])('CURSOR_SECRET refused (%s): /v2/feed and /v2/live page by offset, next_cursor null, never 503 (issue 19)', async (_, env) => {
    for (const path of ['/v2/feed?limit=1&offset=1&sort_by=last_seen', '/v2/live?limit=1&since_minutes=1440']) {
      const reply = await world.call(path, { key: full.key, env });
      expect(reply.status, show(reply)).toBe(200);
      expect(reply.body.total, 'a next page exists').toBeGreaterThan(1);
      expect(reply.body.next_cursor).toBeNull();
      expect(reply.headers.get('link')).toBeNull();
    }
    const production = await world.call('/v2/feed?limit=1', {
      key: full.key,
      env: { CURSOR_SECRET: 'a-real-production-secret-0123456789', ENVIRONMENT: '' },
    });
    expect(typeof production.body.next_cursor, 'a real secret signs as before').toBe('string');
  });
});

describe('GET /v2/feed (errors and scope)', () => {
  it('unknown sort_by is 400; bad enums and ranges are 422', async () => {
    const unknown = await feed('?sort_by=popularity');
    expect(unknown.status, show(unknown)).toBe(400);
    expect(unknown.body.detail).toContain("Unknown sort_by 'popularity'");
    for (const query of [
      '?period=2h',
      '?sort_order=up',
      '?match=some',
      '?limit=0',
      '?limit=201',
      '?offset=-1',
      '?period=custom',
      '?country=usa',
      `?period=custom&date_from=${encodeURIComponent(at(1))}&date_to=${encodeURIComponent(at(2))}`,
      '?category=Sports',
      '?entity=;',
      '?date_from=yesterday',
    ]) {
      const reply = await feed(query);
      expect(reply.status, `${query}: ${show(reply)}`).toBe(422);
      expect(Array.isArray(reply.body.detail)).toBe(true);
    }
  });

  it('a country outside the key is 403 naming it and the allowed ones; restricted keys see only their markets', async () => {
    const refused = await feed('?country=de', restricted.key);
    expect(refused.status, show(refused)).toBe(403);
    expect(refused.body.detail).toBe("Region 'DE' is not allowed for this API key. Allowed regions: US.");
    const mine = await feed('', restricted.key);
    expect(mine.body.items.every((i: any) => i.country === 'us')).toBe(true);
    expect(mine.body.total).toBe(5);
    const fr = await feed('?country=fr');
    expect(fr.status, 'FR is not a market of the project').toBe(403);
    expect((await feed()).body.items.some((i: any) => i.url_id === FRENCH)).toBe(false);
  });

  it('category plans: outside categories are 403, the feed keeps to the plan', async () => {
    const refused = await feed('?category=/News', limited.key);
    expect(refused.status, show(refused)).toBe(403);
    expect(refused.body.detail.code).toBe('category_not_in_plan');
    const mine = await feed('', limited.key);
    expect(new Set(mine.body.items.map((i: any) => i.url_id))).toEqual(new Set([SOCCER, TENNIS]));
    expect((await feed('?category=/Sports/Soccer', limited.key)).body.total).toBe(2);
  });

  it('missing or wrong key is 401', async () => {
    expect((await world.call('/v2/feed')).status).toBe(401);
    expect((await world.call('/v2/feed', { key: 'nope' })).status).toBe(401);
    expect((await world.call('/v2/live')).status).toBe(401);
    expect((await world.call(`/v2/feed/${SOCCER}`)).status).toBe(401);
  });
});

describe('GET /v2/live', () => {
  it('lists newly first-seen profiles, newest first, with since', async () => {
    const reply = await world.call('/v2/live?since_minutes=300', { key: full.key });
    expect(reply.status, show(reply)).toBe(200);
    expect(LivePageSchema.safeParse(reply.body).success).toBe(true);
    // since 07:30: STARTUP (09:00) and UNTAGGED (10:00); ELECTION us (07:00), de (06:00) and TENNIS (02:00) came earlier.
    expect(reply.body.since).toBe('2026-11-20T07:30:00+00:00');
    expect(keys(reply)).toEqual([short(UNTAGGED, 'us', 'en'), short(STARTUP, 'de', 'de')]);
    expect(reply.body).toMatchObject({ total: 2, limit: 50, offset: 0, next_cursor: null });
    const wide = await world.call('/v2/live?since_minutes=1440&country=us', { key: full.key });
    expect(keys(wide)).toEqual([short(UNTAGGED, 'us', 'en'), short(ELECTION, 'us', 'es'), short(TENNIS, 'us', 'en')]);
  });

  it('since_minutes outside 5-1440 is 422; the feed filters apply', async () => {
    for (const q of ['?since_minutes=4', '?since_minutes=1441', '?since_minutes=x']) {
      expect((await world.call(`/v2/live${q}`, { key: full.key })).status, q).toBe(422);
    }
    const sports = await world.call('/v2/live?since_minutes=1440&category=/Sports', { key: full.key });
    expect(keys(sports)).toEqual([short(TENNIS, 'us', 'en')]);
    const refused = await world.call('/v2/live?country=gb', { key: restricted.key });
    expect(refused.status).toBe(403);
  });
});

describe('GET /v2/feed/{url_id}', () => {
  it('answers a bare array of every visible market profile, with markdown by default', async () => {
    const reply = await world.call(`/v2/feed/${SOCCER}`, { key: full.key });
    expect(reply.status, show(reply)).toBe(200);
    expect(ProfilesSchema.safeParse(reply.body).success).toBe(true);
    expect(reply.body.map((i: any) => `${i.country}/${i.language}`)).toEqual(['gb/en', 'us/en']);
    expect(reply.body[0]).toMatchObject({ first_seen: at(25), last_seen: at(23), lifespan: '02:00:00', avg_position: 4 });
    expect(reply.body[0].impressions.last_24h).toEqual({ current: 0, previous: 100, delta_pct: -100 });
    const restrictedReply = await world.call(`/v2/feed/${SOCCER}`, { key: restricted.key });
    expect(restrictedReply.body.map((i: any) => i.country)).toEqual(['us']);
  });

  it('unknown, out-of-market and out-of-plan URLs are 404; a malformed id is 422', async () => {
    expect((await world.call(`/v2/feed/${FRENCH}`, { key: full.key })).status).toBe(404);
    expect((await world.call(`/v2/feed/${STARTUP}`, { key: restricted.key })).status).toBe(404);
    expect((await world.call(`/v2/feed/${ELECTION}`, { key: limited.key })).status).toBe(404);
    expect((await world.call('/v2/feed/00000000-0000-4000-8000-000000000000', { key: full.key })).status).toBe(404);
    expect((await world.call('/v2/feed/not-a-uuid', { key: full.key })).status).toBe(422);
    expect((await world.call(`/v2/feed/${OLD}?include_markdown=false`, { key: full.key })).body[0].markdown_content).toBeNull();
  });
});

describe("issue 19, finding 3: one tenant never breaks another's paging", () => {
  it('a first page cached for one project does not hand its cursor to another project of the same scope', async () => {
    const mine = await feed('?limit=1&country=US', full.key);
    expect(mine.body.next_cursor, show(mine)).toEqual(expect.any(String));
    const theirs = await feed('?limit=1&country=US', other.key);
    expect(theirs.status, show(theirs)).toBe(200);
    const next = await feed(`?limit=1&country=US&cursor=${encodeURIComponent(theirs.body.next_cursor)}`, other.key);
    expect(next.status, show(next)).toBe(200);
  });
});

describe("issue 46, finding 7: a cached page links from the caller's own query", () => {
  it("another key of the same project gets the cached first page with a Link built from its own query, never key A's", async () => {
    const keyB = await createKey(world.db, { projectId: full.projectId, kind: 'project', name: 'b', countries: null });
    const a = await feed('?limit=2&country=US&note=written-by-key-A', full.key);
    expect(a.status, show(a)).toBe(200);
    expect(a.headers.get('link')).toContain('note=written-by-key-A');
    const b = await feed('?limit=2&country=US', keyB.key);
    expect(b.status, show(b)).toBe(200);
    expect(b.body.next_cursor, 'the same cached page').toBe(a.body.next_cursor);
    const link = b.headers.get('link')!;
    expect(link).not.toContain('note=');
    expect(link).toBe(`</v2/feed?limit=2&country=US&cursor=${encodeURIComponent(b.body.next_cursor)}>; rel="next"`);
    const next = await world.call(link.match(/<([^>]+)>/)![1], { key: keyB.key });
    expect(next.status, show(next)).toBe(200);
  });
});

describe('ETag and 304', () => {
  it('If-None-Match answers 304 without spending monthly quota; the minute limit still counts it', async () => {
    const tenant = await world.tenant({ plan: 'scale', countries: ['US'] });
    const first = await feed('', tenant.key);
    const tag = first.headers.get('etag')!;
    const before = (await world.call('/v1/usage', { key: tenant.key })).body;
    const again = await feed('', tenant.key, { 'If-None-Match': tag });
    expect(again.status, show(again)).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(tag);
    const weak = await feed('', tenant.key, { 'If-None-Match': `"nope", W/${tag}` });
    expect(weak.status).toBe(304);
    const after = (await world.call('/v1/usage', { key: tenant.key })).body;
    expect(after.month.used, 'two 304s spent nothing').toBe(before.month.used);
    expect(after.minute.used, 'but both counted per minute (and the usage call)').toBeGreaterThanOrEqual(before.minute.used + 2);
    const changed = await feed('?limit=1', tenant.key, { 'If-None-Match': tag });
    expect(changed.status).toBe(200);
    expect((await world.call('/v1/usage', { key: tenant.key })).body.month.used).toBe(before.month.used + 1);
  });

  it('every keyed GET sends a strong ETag', async () => {
    for (const path of ['/v1/tracking/lists', '/v1/geo/regions', `/v1/articles/${SOCCER}`, `/v2/feed/${SOCCER}`, '/v2/live']) {
      const reply = await world.call(path, { key: full.key });
      expect(reply.status, `${path}: ${show(reply)}`).toBe(200);
      const tag = reply.headers.get('etag');
      expect(tag, path).toMatch(/^"[0-9a-f]{32}"$/);
      expect((await world.call(path, { key: full.key, headers: { 'If-None-Match': tag! } })).status, path).toBe(304);
    }
  });
});

describe('feed windows follow the hour', () => {
  it('the jobs cron slides them to the current hour, and the feed reads them unchanged', async () => {
    world.setNow('2026-11-20T15:10:00.000Z');
    await worker.scheduled(createScheduledController() as any, { ...world.env } as any, createExecutionContext());
    const [state] = await queryRows<{ as_of: string }>(
      world.db,
      `SELECT to_char(as_of AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') AS as_of FROM feed_windows_state`,
    );
    expect(state.as_of).toBe('2026-11-20T16:00');
    const reply = await feed('?sort_by=impressions_24h&limit=1');
    // 24 h ending 16:00: SOCCER us has no hour after 16:00 yesterday left in it; ELECTION us/es leads with 300.
    expect(keys(reply)).toEqual([short(ELECTION, 'us', 'es')]);
    world.setNow(NOW);
  });
});
