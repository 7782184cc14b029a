// GET /v2/live/stream on the real PostgreSQL and Redis: events after an ingest, backfill, a stream cut
// and resumed with its last id against /v2/live, scope (restricted keys, plan categories), foreign and
// tampered resume tokens, the concurrent cap, revocation, and the heartbeat.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceAuthChange } from '../../shared/admin/announce';
import { revokeKey } from '../../shared/admin/keys';
import { monthOf } from '../../shared/limits/quota';
import { createStore } from '../../shared/db/redis';
import type { AuthContext } from '../../shared/auth/types';
import { QUOTA_PERIOD_MS, renewSlots, SLOT_LEASE_MS, SLOT_RENEW_MS, slotsKey, spendPeriod, takeSlot } from '../../shared/streams/slots';
import { announcer, FEED_TOPIC } from '../../shared/streams/signal';
import { ingest } from '../../shared/ingest/index';
import { openStream, type OpenStream } from '../helpers/sse';
import { createWorld, show, type Tenant, type World } from '../helpers/world';

const NOW = '2026-11-20T12:30:00.000Z';
const at = (h: number) => new Date(Date.parse('2026-11-20T12:00:00Z') + h * 3_600_000).toISOString();
const id = (n: number) => `5e5e5e5e-0000-4000-8000-${String(n).padStart(12, '0')}`;

let world: World;
const signals = () =>
  createStore({
    UPSTASH_REDIS_REST_URL: world.env.UPSTASH_REDIS_REST_URL!,
    UPSTASH_REDIS_REST_TOKEN: world.env.UPSTASH_REDIS_REST_TOKEN!,
    REDIS_PREFIX: world.env.REDIS_PREFIX!,
  });
let tenant: Tenant;
const opened: OpenStream[] = [];

function article(n: number, hour: number, country = 'US', category = '/Tech') {
  return [
    {
      type: 'article',
      id: id(n),
      url: `https://news${n}.example.com/a`,
      domain: `news${n}.example.com`,
      publisher: `News ${n}`,
      favicon_url: '',
      title: `Story ${n}`,
      summary: '',
      body: 'text',
      content_language: 'en',
      date_published: at(hour),
      date_modified: at(hour),
      meta: { meta_title: '', meta_description: '', headline: '', section: '' },
      enrichment: { actors: [], topic: [], format_group: 'article', format_type: 'news', entities: {} },
      rss_feeds: null,
      images: [],
      markdown_content: null,
      first_seen_at: at(hour),
      refreshed_at: at(hour),
      categories: [{ name: category, confidence: 0.9 }],
      entities: [],
    },
    { type: 'observation', url_id: id(n), country, language: 'en', hour: at(hour), impressions: 10 + n, position: 2 },
  ];
}

/** Ingests records as the product does, and tells the streams (the ingest's announce hook). */
async function ingestAndAnnounce(records: object[]) {
  const client = await world.pool().connect();
  try {
    const summary = await ingest(
      client,
      records.map((r) => JSON.stringify(r)),
      { announce: announcer(signals(), FEED_TOPIC), now: new Date(NOW) },
    );
    expect(summary.skipped).toBe(0);
  } finally {
    client.release();
  }
}

async function stream(path: string, key = tenant.key, headers: Record<string, string> = {}) {
  const s = await openStream(world, path, key, headers);
  opened.push(s);
  return s;
}

const items = (s: OpenStream) => s.events('item').map((e) => JSON.parse(e.data!) as { url_id: string; country: string });
const keyOf = (i: { url_id: string; country: string }) => `${i.url_id}|${i.country}`;

beforeAll(async () => {
  world = await createWorld('streams_live');
  world.setNow(NOW);
  tenant = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
  await ingestAndAnnounce([...article(1, -2), ...article(2, 0), ...article(3, 0, 'GB'), ...article(4, 0, 'DE', '/Sports')]);
}, 120_000);

afterAll(async () => {
  for (const s of opened) await s.close();
});

describe('GET /v2/live/stream', () => {
  it('sends what an ingest commits, once, as /v2/live then lists it', async () => {
    const s = await stream('/v2/live/stream?country=us');
    expect(s.status, s.text).toBe(200);
    expect(s.headers.get('Content-Type')).toMatch(/^text\/event-stream/);
    expect(s.headers.get('RateLimit')).toBeTruthy();
    await s.until((f) => f.some((x) => x.retry === 5000));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(items(s)).toEqual([]);
    await ingestAndAnnounce([...article(10, 0), ...article(11, 0, 'GB')]);
    await s.until(() => items(s).length >= 1);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(items(s).map(keyOf)).toEqual([`${id(10)}|us`]);
    const live = await world.call('/v2/live?country=us&since_minutes=60', { key: tenant.key });
    expect(live.status, show(live)).toBe(200);
    expect(live.body.items.map(keyOf)).toContain(`${id(10)}|us`);
    expect(items(s)[0]).toEqual(live.body.items.find((i: { url_id: string }) => i.url_id === id(10)));
  });

  it('backfills oldest first, then continues; cut and resumed it equals /v2/live with no duplicate', async () => {
    const first = await stream('/v2/live/stream?since_minutes=60');
    expect(first.status, first.text).toBe(200);
    await first.until(() => items(first).length >= 2);
    const cut = first.events('item')[1];
    await first.close();
    const before = items(first).slice(0, 2);
    await ingestAndAnnounce([...article(20, 0), ...article(21, 0, 'DE', '/Sports')]);
    const resumed = await stream('/v2/live/stream?since_minutes=60', tenant.key, { 'Last-Event-ID': cut.id! });
    expect(resumed.status, resumed.text).toBe(200);
    const live = await world.call('/v2/live?since_minutes=60&limit=200', { key: tenant.key });
    const expected = live.body.items.map(keyOf);
    await resumed.until(() => before.length + items(resumed).length >= expected.length);
    await new Promise((r) => setTimeout(r, 1_500));
    const all = [...before, ...items(resumed)].map(keyOf);
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual([...expected].sort());
    // Backfill oldest first (as of the opening), then arrivals: what /v2/live lists, newest first, reversed.
    const backfilled = all.filter((k) => !k.startsWith(id(20)) && !k.startsWith(id(21)));
    expect(backfilled).toEqual(expected.filter((k: string) => backfilled.includes(k)).reverse());
    expect(all.slice(-2).sort()).toEqual([`${id(20)}|us`, `${id(21)}|de`].sort());
  });

  it('keeps to the key: restricted markets and plan categories', async () => {
    const restricted = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] }, { countries: ['GB'] });
    const start = await world.tenant({ plan: 'start', countries: ['US', 'GB', 'DE'], categories: ['/Sports'] });
    const gb = await stream('/v2/live/stream?since_minutes=60', restricted.key);
    const sports = await stream('/v2/live/stream?since_minutes=60', start.key);
    await ingestAndAnnounce([...article(30, 0, 'GB'), ...article(31, 0, 'DE', '/Sports'), ...article(32, 0, 'US')]);
    await gb.until(() => items(gb).some((i) => i.url_id === id(30)));
    await sports.until(() => items(sports).some((i) => i.url_id === id(31)));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(items(gb).every((i) => i.country === 'gb')).toBe(true);
    const sportsIds = items(sports).map((i) => i.url_id);
    expect(sportsIds.every((u) => [id(4), id(21), id(31)].includes(u))).toBe(true);
    const outside = await stream('/v2/live/stream?country=us', restricted.key);
    expect(outside.status).toBe(403);
    const notInPlan = await stream('/v2/live/stream?category=/Tech', start.key);
    expect(notInPlan.status).toBe(403);
  });

  it('refuses foreign, tampered and other-route tokens with 400', async () => {
    const s = await stream('/v2/live/stream?since_minutes=60');
    await s.until(() => items(s).length >= 1);
    const token = s.events('item')[0].id!;
    await s.close();
    const other = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
    const foreign = await stream('/v2/live/stream?since_minutes=60', other.key, { 'Last-Event-ID': token });
    expect(foreign.status).toBe(400);
    expect(foreign.text).toMatch(/another query, route or API key/);
    const otherQuery = await stream('/v2/live/stream?country=gb', tenant.key, { 'Last-Event-ID': token });
    expect(otherQuery.status).toBe(400);
    const tampered = await stream('/v2/live/stream', tenant.key, { 'Last-Event-ID': `${token.slice(0, -2)}xx` });
    expect(tampered.status).toBe(400);
    expect(tampered.text).toMatch(/Last-Event-ID/);
    const page = await world.call('/v2/live?since_minutes=60&limit=1', { key: tenant.key });
    const cursor = await stream('/v2/live/stream', tenant.key, { 'Last-Event-ID': page.body.next_cursor });
    expect(cursor.status).toBe(400);
  });

  it('caps concurrent streams per key (start: 1), and a revoked key closes its stream within 2 s', async () => {
    const start = await world.tenant({ plan: 'start', countries: ['US'], categories: ['/Tech'] });
    const one = await stream('/v2/live/stream', start.key);
    expect(one.status, one.text).toBe(200);
    await one.until((f) => f.some((x) => x.retry !== undefined));
    const two = await stream('/v2/live/stream', start.key);
    expect(two.status).toBe(429);
    expect(JSON.parse(two.text!).detail.code, two.text).toBe('too_many_streams');
    await revokeKey(world.db, start.keyId, new Date());
    await announceAuthChange(signals());
    const t0 = Date.now();
    await one.until((f) => f.some((x) => x.event === 'end'), 5_000);
    expect(Date.now() - t0).toBeLessThan(2_500);
    expect(JSON.parse(one.events('end')[0].data!).reason).toBe('key_revoked');
  });

  it("gives the slot back when the client goes: the loop and its cleanup run under the request's waitUntil", async () => {
    // workerd cancels a request whose client went away, and its pending promises with it, unless
    // waitUntil holds it: the cleanup that gives the slot back must be work the request waits for.
    const start = await world.tenant({ plan: 'start', countries: ['US'], categories: ['/Tech'] });
    const one = await stream('/v2/live/stream', start.key);
    expect(one.status, one.text).toBe(200);
    await one.until((f) => f.some((x) => x.retry !== undefined));
    await one.close();
    await one.settled();
    expect(await signals().redis.zcard(slotsKey(signals(), start.keyId))).toBe(0);
    const again = await stream('/v2/live/stream', start.key);
    expect(again.status, again.text).toBe(200);
  });

  it('frees a slot whose release never arrived once its lease lapses, a minute later, not at the 61st minute', async () => {
    const store = signals();
    const auth = { keyId: crypto.randomUUID(), plan: 'start' } as AuthContext;
    const now = Date.now();
    // Taken and never given back: the stream's isolate died, or Redis failed every try of its release.
    await takeSlot(store, auth, 'lost', now);
    await expect(takeSlot(store, auth, 'next', now + SLOT_LEASE_MS - 1_000)).rejects.toMatchObject({ status: 429 });
    const release = await takeSlot(store, auth, 'next', now + SLOT_LEASE_MS + 1);
    expect(await store.redis.zrange(slotsKey(store, auth.keyId), 0, -1)).toEqual(['next']);
    await release();
    expect(SLOT_LEASE_MS).toBe(60_000);
  });

  it("renews an open stream's slot with the isolate's others, and never a slot given back", async () => {
    const store = signals();
    const auth = { keyId: crypto.randomUUID(), plan: 'grow' } as AuthContext;
    const key = slotsKey(store, auth.keyId);
    const now = Date.now();
    const releaseA = await takeSlot(store, auth, 'a', now);
    const releaseB = await takeSlot(store, auth, 'b', now);
    await renewSlots(store, now + 1_000);
    expect(await store.redis.zscore(key, 'a'), 'not due yet').toBe(now + SLOT_LEASE_MS);
    await renewSlots(store, now + SLOT_RENEW_MS);
    expect(await store.redis.zscore(key, 'a')).toBe(now + SLOT_RENEW_MS + SLOT_LEASE_MS);
    expect(await store.redis.zscore(key, 'b')).toBe(now + SLOT_RENEW_MS + SLOT_LEASE_MS);
    // Renewed, a slot outlives its first lease: an open stream keeps counting.
    const releaseC = await takeSlot(store, auth, 'c', now + SLOT_LEASE_MS + 1);
    expect((await store.redis.zrange(key, 0, -1)).sort()).toEqual(['a', 'b', 'c']);
    await releaseC();
    await releaseA();
    await renewSlots(store, now + 2 * SLOT_RENEW_MS);
    expect(await store.redis.zscore(key, 'a'), 'given back stays given back').toBeNull();
    expect(await store.redis.zscore(key, 'b')).toBe(now + 2 * SLOT_RENEW_MS + SLOT_LEASE_MS);
    await releaseB();
  });

  it('spends one request of the monthly quota to open, and one more per further 15 minutes open', async () => {
    const grow = await world.tenant({ plan: 'grow', countries: ['US'], categories: ['/Tech'] });
    const store = signals();
    const quotaKey = store.key('quota', grow.projectId, monthOf(new Date()));
    const s = await stream('/v2/live/stream', grow.key);
    expect(s.status, s.text).toBe(200);
    expect(s.headers.get('RateLimit-Policy')).toContain('"month";q=10000');
    await s.until((f) => f.some((x) => x.retry !== undefined));
    // Edge mode counts the opening in Redis right after the answer.
    for (let i = 0; i < 20 && Number(await store.redis.get(quotaKey)) < 1; i++) await new Promise((r) => setTimeout(r, 100));
    expect(Number(await store.redis.get(quotaKey))).toBe(1);
    // A further period (what the stream does every QUOTA_PERIOD_MS): one more, refused past the quota.
    expect(QUOTA_PERIOD_MS).toBe(15 * 60_000);
    expect(await spendPeriod(store, quotaKey, 10_000)).toBe(true);
    expect(Number(await store.redis.get(quotaKey))).toBe(2);
    expect(await spendPeriod(store, quotaKey, 2)).toBe(false);
    expect(Number(await store.redis.get(quotaKey))).toBe(2);
  });

  it('ends a stream at max_seconds with event: end', async () => {
    const s = await stream('/v2/live/stream?max_seconds=1');
    await s.until((f) => f.some((x) => x.event === 'end'), 5_000);
    expect(JSON.parse(s.events('end')[0].data!).reason).toBe('max_duration');
    expect((await stream('/v2/live/stream?max_seconds=3601')).status).toBe(422);
  });

  it('sends a heartbeat comment every 15 s', async () => {
    const s = await stream('/v2/live/stream?country=gb');
    await s.until((f) => f.some((x) => x.comment?.startsWith('heartbeat')), 20_000);
  }, 25_000);

  it('validates since_minutes', async () => {
    expect((await stream('/v2/live/stream?since_minutes=3')).status).toBe(422);
    expect((await stream('/v2/live/stream?since_minutes=1441')).status).toBe(422);
    expect((await stream('/v2/live/stream', 'dk_nope')).status).toBe(401);
  });

  it("backfills what /v2/live lists at the opening minute, in an hour's first minute too", async () => {
    // At 13:00:30 `since_minutes=60` counts from 13:00: the profiles first seen at 12:00 are listed, and a
    // floor of 12:00:30 (now to the millisecond) left them out of the stream.
    world.setNow('2026-11-20T13:00:30.000Z');
    try {
      const live = await world.call('/v2/live?since_minutes=60&limit=200', { key: tenant.key });
      const expected = live.body.items.map(keyOf);
      expect(expected).toContain(`${id(2)}|us`);
      const s = await stream('/v2/live/stream?since_minutes=60');
      expect(s.status, s.text).toBe(200);
      await s.until(() => items(s).length >= expected.length);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(items(s).map(keyOf).sort()).toEqual([...expected].sort());
    } finally {
      world.setNow(NOW);
    }
  });
});
