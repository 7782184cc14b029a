// GET /v1/tracking/lists/{list_id}/matches/stream on the real PostgreSQL and Redis: publications a scan
// finds arrive once, shaped as /matches shows them; a stream cut and resumed with its last id equals
// /matches; filters; kind_mismatch, another project's list, foreign and tampered tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanMentionList } from '../../functions/jobs/scan';
import { createList } from '../../shared/admin/lists';
import { createStore } from '../../shared/db/redis';
import { announcer, listTopic } from '../../shared/streams/signal';
import { seed } from '../helpers/seed';
import { openStream, type OpenStream } from '../helpers/sse';
import { createWorld, type Tenant, type World } from '../helpers/world';

const NOW = '2026-11-20T12:00:00.000Z';
const hoursAgo = (h: number) => new Date(Date.parse(NOW) - h * 3_600_000).toISOString();
const id = (n: number) => `6e6e6e6e-0000-4000-8000-${String(n).padStart(12, '0')}`;

let world: World;
let tenant: Tenant;
let list: string;
const opened: OpenStream[] = [];

function article(n: number, title: string, seenHoursAgo: number, country = 'US') {
  return [
    {
      type: 'article',
      id: id(n),
      url: `https://m${n}.example.com/a`,
      domain: `m${n}.example.com`,
      publisher: `M ${n}`,
      favicon_url: '',
      title,
      summary: '',
      body: 'Body text.',
      content_language: 'en',
      date_published: hoursAgo(seenHoursAgo),
      date_modified: hoursAgo(seenHoursAgo),
      meta: { meta_title: title, meta_description: '', headline: title, section: '' },
      enrichment: { actors: [], topic: [], format_group: 'article', format_type: 'news', entities: {} },
      rss_feeds: null,
      images: [],
      markdown_content: null,
      first_seen_at: hoursAgo(seenHoursAgo),
      refreshed_at: hoursAgo(seenHoursAgo),
      categories: [{ name: '/Tech', confidence: 0.9 }],
      entities: [],
    },
    { type: 'observation', url_id: id(n), country, language: 'en', hour: hoursAgo(seenHoursAgo), impressions: 5, position: 2 },
  ];
}

/** A scan at `at`, then the list's signal (what the jobs consumer does). */
async function scan(at: string) {
  const client = await world.pool().connect();
  try {
    await scanMentionList(client, list, new Date(at));
  } finally {
    client.release();
  }
  const store = createStore({
    UPSTASH_REDIS_REST_URL: world.env.UPSTASH_REDIS_REST_URL!,
    UPSTASH_REDIS_REST_TOKEN: world.env.UPSTASH_REDIS_REST_TOKEN!,
    REDIS_PREFIX: world.env.REDIS_PREFIX!,
  });
  await announcer(store, listTopic(list))();
}

async function stream(query = '', key = tenant.key, headers: Record<string, string> = {}, target = list) {
  const s = await openStream(world, `/v1/tracking/lists/${target}/matches/stream${query}`, key, headers);
  opened.push(s);
  return s;
}

const published = (s: OpenStream) => s.events('publication').map((e) => JSON.parse(e.data!));

beforeAll(async () => {
  world = await createWorld('streams_matches');
  world.setNow(NOW);
  tenant = await world.tenant({ plan: 'scale', countries: ['US', 'GB', 'DE'] });
  await seed(world, [...article(1, 'Heat pump prices fall', 10), ...article(2, 'Solar roofs', 8), ...article(3, 'Nothing here', 6)]);
  list = (
    await createList(
      world.db,
      {
        projectId: tenant.projectId,
        kind: 'mention',
        name: 'Energy',
        countries: ['US', 'GB'],
        langs: ['en'],
        searchScope: 'both',
        createdAt: new Date(NOW),
        terms: [
          { keyword: 'heat pump', matchType: 'broad' },
          { keyword: 'solar', matchType: 'broad' },
        ],
      },
      new Date(NOW),
    )
  ).id;
  await scan(hoursAgo(1));
}, 120_000);

afterAll(async () => {
  for (const s of opened) await s.close();
});

describe('GET .../matches/stream', () => {
  it('sends each publication a scan newly matches, once, as /matches shows it', async () => {
    const s = await stream();
    expect(s.status, s.text).toBe(200);
    await s.until((f) => f.some((x) => x.retry !== undefined));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(published(s)).toEqual([]);
    await seed(world, [...article(4, 'Solar heat pump combo', 2), ...article(5, 'Heat pump in GB', 2, 'GB')]);
    await scan(hoursAgo(0.5));
    await s.until(() => published(s).length >= 2);
    await scan(hoursAgo(0.25)); // nothing new: nothing sent
    await new Promise((r) => setTimeout(r, 2_000));
    const got = published(s);
    expect(got.map((e) => e.publication.id).sort()).toEqual([id(4), id(5)]);
    const reply = await world.call(`/v1/tracking/lists/${list}/matches`, { key: tenant.key });
    for (const e of got) {
      expect(e.publication).toEqual(reply.body.publications.find((p: { id: string }) => p.id === e.publication.id));
      expect(e.hits).toEqual(reply.body.hits[e.publication.id]);
    }
  });

  it('cut and resumed with its last id, it equals /matches, without duplicates; filters apply', async () => {
    const first = await stream('?since_minutes=1440');
    await first.until(() => published(first).length >= 2);
    const cut = first.events('publication')[1];
    await first.close();
    await seed(world, [...article(6, 'More solar news', 1)]);
    await scan(hoursAgo(0.1));
    const resumed = await stream('?since_minutes=1440', tenant.key, { 'Last-Event-ID': cut.id! });
    expect(resumed.status, resumed.text).toBe(200);
    const reply = await world.call(`/v1/tracking/lists/${list}/matches`, { key: tenant.key });
    const expected = reply.body.publications.map((p: { id: string }) => p.id);
    await resumed.until(() => 2 + published(resumed).length >= expected.length);
    await new Promise((r) => setTimeout(r, 1_500));
    const all = [...published(first).slice(0, 2), ...published(resumed)].map((e) => e.publication.id);
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual([...expected].sort());
    const solar = await stream('?since_minutes=1440&mention=solar&country=us');
    await solar.until(() => published(solar).length >= 3);
    expect(published(solar).every((e) => e.hits.mentions.every((m: { raw_text: string }) => m.raw_text === 'solar'))).toBe(true);
    expect(published(solar).every((e) => e.publication.country === 'US')).toBe(true);
  });

  it('refuses other kinds, other projects, foreign and tampered tokens', async () => {
    const entity = (await createList(world.db, { projectId: tenant.projectId, kind: 'entity', name: 'E', items: [{ key: 'x' }] })).id;
    const wrong = await stream('', tenant.key, {}, entity);
    expect(wrong.status).toBe(400);
    expect(JSON.parse(wrong.text!).detail.code).toBe('kind_mismatch');
    const other = await world.tenant({ plan: 'scale', countries: ['US'] });
    expect((await stream('', other.key)).status).toBe(404);
    const s = await stream('?since_minutes=1440');
    await s.until(() => published(s).length >= 1);
    const token = s.events('publication')[0].id!;
    expect((await stream('?mention=solar', tenant.key, { 'Last-Event-ID': token })).status).toBe(400);
    expect((await stream('', tenant.key, { 'Last-Event-ID': `x${token}` })).status).toBe(400);
    const live = await openStream(world, '/v2/live/stream', tenant.key, { 'Last-Event-ID': token });
    opened.push(live);
    expect(live.status).toBe(400);
  });
});
