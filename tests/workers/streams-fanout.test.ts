// The fan-out property of the push streams (docs/PERFORMANCE.md "Streams"): however many streams of one
// scope are open, in one isolate or several, and however slowly some read a burst, an ingest costs the
// data region the same queries and every stream gets every event once. Counted at the distant gateway,
// which only these streams use (timed file: it runs alone, vitest.config.ts TIMED).
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { ingest } from '../../shared/ingest/index';
import { createStore } from '../../shared/db/redis';
import { groupsAfresh } from '../../shared/streams/hub';
import { announcer, FEED_TOPIC } from '../../shared/streams/signal';
import { type OpenStream, openStream, type SseEvent } from '../helpers/sse';
import { createWorld, type Tenant, type World } from '../helpers/world';

const NOW = '2026-11-20T12:30:00.000Z';
const DISTANT = {
  UPSTASH_REDIS_REST_URL: env.DISTANT_UPSTASH_URL,
  NEON_HTTP_ENDPOINT: new URL('/sql', env.DISTANT_UPSTASH_URL).toString(),
};
const gateway = (path: string, method = 'GET') => fetch(new URL(path, env.DISTANT_UPSTASH_URL), { method });

let world: World;
let tenant: Tenant;
let next = 1;

function newProfile() {
  const n = next++;
  const id = `7e7e7e7e-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const hour = '2026-11-20T12:00:00.000Z';
  return {
    id,
    records: [
      {
        type: 'article',
        id,
        url: `https://f${n}.example.com/a`,
        domain: `f${n}.example.com`,
        publisher: 'F',
        favicon_url: '',
        title: `Fan ${n}`,
        summary: '',
        body: '',
        content_language: 'en',
        date_published: hour,
        date_modified: hour,
        meta: { meta_title: '', meta_description: '', headline: '', section: '' },
        enrichment: { actors: [], topic: [], format_group: 'article', format_type: 'news', entities: {} },
        rss_feeds: null,
        images: [],
        markdown_content: null,
        first_seen_at: hour,
        refreshed_at: hour,
        categories: [{ name: '/Tech', confidence: 0.9 }],
        entities: [],
      },
      { type: 'observation', url_id: id, country: 'US', language: 'en', hour, impressions: 3, position: 1 },
    ],
  };
}

async function ingestOne(): Promise<string> {
  return (await ingestMany(1))[0];
}

/** `n` new profiles of the streams' scope in one ingest (one commit, one signal). */
async function ingestMany(n: number): Promise<string[]> {
  const profiles = Array.from({ length: n }, newProfile);
  const records = profiles.flatMap((p) => p.records);
  const client = await world.pool().connect();
  try {
    const store = createStore({
      UPSTASH_REDIS_REST_URL: world.env.UPSTASH_REDIS_REST_URL!,
      UPSTASH_REDIS_REST_TOKEN: world.env.UPSTASH_REDIS_REST_TOKEN!,
      REDIS_PREFIX: world.env.REDIS_PREFIX!,
    });
    await ingest(
      client,
      records.map((r) => JSON.stringify(r)),
      { announce: announcer(store, FEED_TOPIC), now: new Date(NOW) },
    );
  } finally {
    client.release();
  }
  return profiles.map((p) => p.id);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function openLevel(n: number): Promise<OpenStream[]> {
  const streams = await Promise.all(
    Array.from({ length: n }, () => openStream(world, '/v2/live/stream?country=us', tenant.key, {}, DISTANT)),
  );
  for (const s of streams) expect(s.status, s.text).toBe(200);
  await Promise.all(streams.map((s) => s.until((f) => f.some((x) => x.retry !== undefined))));
  return streams;
}

/** Once the streams have placed themselves, counting starts. */
async function settled(): Promise<void> {
  await sleep(2_000);
  await gateway('/stats/reset', 'POST');
}

/** The gateway's requests since the reset (its counters are lifetime totals), once what was on its way has finished. */
async function counted(): Promise<{ sql: number; redis: number }> {
  await sleep(1_000);
  await gateway('/stats/mark', 'POST');
  const { spans } = (await (await gateway('/stats?spans=1')).json()) as { spans: { label: string }[] };
  return {
    sql: spans.filter((s) => s.label.startsWith('sql')).length,
    redis: spans.filter((s) => s.label.startsWith('redis')).length,
  };
}

/** Database queries and Redis calls at the distant gateway from an ingest to its delivery to `n` streams of one scope. */
async function over(n: number): Promise<{ sql: number; redis: number }> {
  const streams = await openLevel(n);
  await settled();
  const id = await ingestOne();
  await Promise.all(streams.map((s) => s.until((f) => f.some((x) => x.data?.includes(id)), 15_000)));
  const stats = await counted();
  for (const s of streams) await s.close();
  return stats;
}

/** The same over `isolates` groups of one scope, `per` streams each, as so many isolates would hold them. */
async function overIsolates(isolates: number, per: number): Promise<{ sql: number; redis: number }> {
  const streams: OpenStream[] = [];
  for (let i = 0; i < isolates; i++) {
    groupsAfresh();
    streams.push(...(await openLevel(per)));
  }
  groupsAfresh();
  await settled();
  const id = await ingestOne();
  await Promise.all(streams.map((s) => s.until((f) => f.some((x) => x.data?.includes(id)), 15_000)));
  const stats = await counted();
  for (const s of streams) expect(s.events('item').length, 'one item each').toBe(1);
  for (const s of streams) await s.close();
  return stats;
}

/** More new profiles in one commit than a group keeps (shared/streams/hub.ts BUFFER_EVENTS). */
const BURST = 2_400;
const urlIds = (s: OpenStream) => s.events('item').map((e) => (JSON.parse(e.data!) as { url_id: string }).url_id);

/**
 * The queries of a burst delivered to `n` streams of one scope, `slow` of which stop reading for a
 * while as it arrives (a client on a slow link): every stream must get every profile exactly once.
 */
async function overBurst(n: number, slow: number): Promise<{ sql: number; redis: number }> {
  const streams = await openLevel(n);
  await settled();
  for (const s of streams.slice(0, slow)) s.pause();
  const ids = await ingestMany(BURST);
  await sleep(5_000);
  for (const s of streams) s.resume();
  const all = (f: SseEvent[]) => f.filter((x) => x.event === 'item').length >= BURST;
  await Promise.all(streams.map((s) => s.until(all, 60_000).catch(() => undefined)));
  const stats = await counted();
  for (const [i, s] of streams.entries()) {
    const got = urlIds(s);
    const sent = { received: got.length, distinct: new Set(got).size, in_order: got.every((u, j) => u === ids[j]) };
    expect(sent, `stream ${i} (${i < slow ? 'slow' : 'reading'})`).toEqual({ received: BURST, distinct: BURST, in_order: true });
  }
  for (const s of streams) await s.close();
  return stats;
}

beforeAll(async () => {
  world = await createWorld('streams_fanout');
  world.setNow(NOW);
  tenant = await world.tenant({ plan: 'enterprise', countries: ['US', 'GB'] });
  await ingestOne();
  // The windows slid to the clock's hour before counting (a read that finds them behind slides them).
  await world.call('/v2/live?since_minutes=60', { key: tenant.key });
}, 120_000);

describe('fan-out', () => {
  it('an ingest costs 1 and 50 streams of one scope the same database queries', async () => {
    const one = await over(1);
    const fifty = await over(50);
    expect(one.sql).toBeGreaterThan(0);
    expect(fifty.sql).toBe(one.sql);
    // Redis: each isolate reads the signals once a second whatever the number of streams (timing decides the count).
    expect(fifty.redis).toBeLessThan(one.redis + 10);
  }, 90_000);

  it('a burst larger than a group keeps: streams that stop reading for a while miss nothing and read nothing on their own', async () => {
    const one = await overBurst(1, 0);
    const six = await overBurst(6, 3);
    expect(one.sql).toBeGreaterThan(BURST / 200);
    expect(six.sql).toBe(one.sql);
  }, 300_000);

  it('one scope held by several isolates: one query per ingest between them (the others take its result from Redis)', async () => {
    const alone = await overIsolates(1, 2);
    const three = await overIsolates(3, 2);
    expect(alone.sql).toBeGreaterThan(0);
    expect(three.sql).toBe(alone.sql);
  }, 90_000);
});
