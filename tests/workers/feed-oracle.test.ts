// The feed's reference oracle: every number of every item equals plain SQL over raw observations
// for random "now"s (minute-precise, so the windows slide back and forth incrementally between
// runs), after late data, duplicates and corrections; and cursor iteration while data arrives.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../shared/db/raw';
import { BASE, dataset, HOURS } from '../fixtures/oracle';
import { seed } from '../helpers/seed';
import { createWorld, show, type Tenant, type World } from '../helpers/world';

let world: World;
let tenant: Tenant;

beforeAll(async () => {
  world = await createWorld('feed_oracle');
  for (const batch of dataset()) await seed(world, batch);
  // Hundreds of requests a minute from one key (fast-check runs): lift its per-minute limit.
  tenant = await world.tenant({ plan: 'enterprise', countries: ['US', 'GB', 'DE'], rateLimitPerMinute: 1_000_000 });
}, 120_000);

const H = 3_600_000;
const WINDOWS = { '1h': 1, '24h': 24, '7d': 168, '30d': 720 } as const;

interface NaiveProfile {
  key: string;
  first: number;
  last: number;
  avg: number;
  hours: Map<number, number>;
}

/** Every profile straight from observations: first/last active hour, weighted position, impressions per hour. */
async function naiveProfiles(): Promise<Map<string, NaiveProfile>> {
  const rows = await queryRows<{ url_id: string; country: string; language: string; hour: string; impressions: number; position: number }>(
    world.db,
    `SELECT url_id::text, country, language, hour, impressions, position FROM observations`,
  );
  const byKey = new Map<string, { url_id: string; country: string; language: string; obs: { t: number; imp: number; pos: number }[] }>();
  for (const r of rows) {
    const key = `${r.url_id}/${r.country.toLowerCase()}/${r.language}`;
    const p = byKey.get(key) ?? { url_id: r.url_id, country: r.country, language: r.language, obs: [] };
    p.obs.push({ t: new Date(r.hour).getTime(), imp: Number(r.impressions), pos: Number(r.position) });
    byKey.set(key, p);
  }
  const out = new Map<string, NaiveProfile>();
  for (const [key, p] of byKey) {
    const active = p.obs.filter((o) => o.imp > 0);
    const span = active.length ? active : p.obs;
    const impSum = p.obs.reduce((a, o) => a + o.imp, 0);
    out.set(key, {
      key,
      first: Math.min(...span.map((o) => o.t)),
      last: Math.max(...span.map((o) => o.t)) + H,
      avg: impSum > 0 ? p.obs.reduce((a, o) => a + o.imp * o.pos, 0) / impSum : p.obs.reduce((a, o) => a + o.pos, 0) / p.obs.length,
      hours: new Map(p.obs.map((o) => [o.t, o.imp])),
    });
  }
  return out;
}

const sumHours = (p: NaiveProfile, from: number, to: number) => {
  let s = 0;
  for (const [t, imp] of p.hours) if (t >= from && t < to) s += imp;
  return s;
};

function expectedImpressions(p: NaiveProfile, end: number) {
  const out: Record<string, unknown> = {};
  for (const [name, hours] of Object.entries(WINDOWS)) {
    const w = hours * H;
    const current = sumHours(p, end - w, end);
    const previous = end - w <= p.first ? null : sumHours(p, end - 2 * w, end - w);
    out[`last_${name}`] = {
      current,
      previous,
      delta_pct: previous === null || previous === 0 ? null : Math.round(((current - previous) / previous) * 1000) / 10,
    };
  }
  const today = Math.floor((end - 1) / (24 * H)) * 24 * H;
  out.breakdown = {
    hourly_24h: Array.from({ length: 24 }, (_, i) => p.hours.get(end - (24 - i) * H) ?? 0),
    daily_30d: Array.from({ length: 30 }, (_, i) => sumHours(p, today - (29 - i) * 24 * H, Math.min(today - (28 - i) * 24 * H, end))),
  };
  return out;
}

const SORTS = [
  'impressions_1h',
  'impressions_24h',
  'impressions_7d',
  'impressions_30d',
  'derived',
  'first_seen',
  'last_seen',
  'avg_position',
] as const;

describe('feed items equal the raw-observation reference', () => {
  it('windows, previous windows, delta_pct, breakdowns, lifespans and order for random now', async () => {
    const naive = await naiveProfiles();
    // A start and a walk of small steps: each step slides the windows by a few hours, so a profile whose
    // only change is at one window edge must be found by the slide.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -24 * 60, max: (HOURS + 72) * 60 }),
        fc.array(fc.integer({ min: -50 * 60, max: 50 * 60 }), { minLength: 1, maxLength: 4 }),
        fc.constantFrom(...SORTS),
        fc.constantFrom('asc', 'desc'),
        async (start, steps, sortBy, order) => {
          let minute = start;
          for (const step of steps) {
            minute += step;
            const now = BASE + minute * 60_000;
            world.setNow(new Date(now).toISOString());
            const reply = await world.call(`/v2/feed?limit=200&sort_by=${sortBy}&sort_order=${order}`, { key: tenant.key });
            expect(reply.status, show(reply)).toBe(200);
            const end = Math.ceil(now / H) * H;
            const expected = [...naive.values()];
            expect(reply.body.total).toBe(expected.length);
            expect(reply.body.items).toHaveLength(expected.length);
            for (const item of reply.body.items) {
              const p = naive.get(`${item.url_id}/${item.country}/${item.language}`)!;
              expect(p, item.url_id).toBeDefined();
              expect(item.impressions, `${p.key} at ${new Date(now).toISOString()}`).toEqual(expectedImpressions(p, end));
              expect(Date.parse(item.first_seen)).toBe(p.first);
              // The end of the last active hour, but never after the answer's minute: nothing is seen in the future.
              const last = Math.min(p.last, Math.floor(now / 60_000) * 60_000);
              expect(Date.parse(item.last_seen)).toBe(last);
              const life = Math.max(0, last - p.first) / 1000; // a profile first seen after now (impossible live) lives 0
              expect(item.lifespan).toBe(
                `${String(Math.floor(life / 3600)).padStart(2, '0')}:${String(Math.floor((life % 3600) / 60)).padStart(2, '0')}:00`,
              );
              expect(item.avg_position).toBeCloseTo(p.avg, 1);
            }
            const value = (i: any) => {
              const imp = i.impressions;
              switch (sortBy) {
                case 'first_seen':
                  return Date.parse(i.first_seen);
                // The sort key is the stored end of the last active hour; the served value stops at now.
                case 'last_seen':
                  return naive.get(`${i.url_id}/${i.country}/${i.language}`)!.last;
                case 'avg_position':
                  return naive.get(`${i.url_id}/${i.country}/${i.language}`)!.avg;
                case 'derived':
                  return 5040 * imp.last_1h.current + 210 * imp.last_24h.current + 30 * imp.last_7d.current + 7 * imp.last_30d.current;
                default:
                  return imp[`last_${sortBy.split('_')[1]}`].current;
              }
            };
            const sign = order === 'asc' ? 1 : -1;
            const tie = (i: any) => `${i.url_id}|${i.country.toUpperCase()}|${i.language}`;
            const items = reply.body.items;
            for (let n = 1; n < items.length; n++) {
              const d = value(items[n]) - value(items[n - 1]);
              if (Math.abs(d) > 1e-6) expect(Math.sign(d), `${sortBy} ${order} at ${n}`).toBe(sign);
              else expect(tie(items[n]) > tie(items[n - 1]) ? 1 : -1, `tie at ${n}`).toBe(sign);
            }
          }
        },
      ),
      { numRuns: 20 },
    );
  }, 180_000);
});

// Cursor iteration while data changes (docs/FEED.md "Paging", docs/DATA.md "Feed snapshots"): between
// pages, new hours, late hours (before a profile's first hour, so first_seen moves), corrections of
// existing hours (up or down to 0), new profiles and the hour moving (a slide) change sort values, so
// profiles cross the cursor's position in both directions. Every sort, both orders: the iteration yields
// exactly the profiles that existed when it began, once each, in the order of their values at that time.
type Op =
  | { kind: 'hour' | 'late' | 'correct'; pick: number; imp: number; pos: number }
  | { kind: 'new'; pos: number; imp: number }
  | { kind: 'tick'; minutes: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('hour' as const, 'late' as const, 'correct' as const),
    pick: fc.nat(10_000),
    imp: fc.nat(5_000),
    pos: fc.integer({ min: 1, max: 30 }),
  }),
  fc.record({ kind: fc.constant('new' as const), imp: fc.integer({ min: 1, max: 5_000 }), pos: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ kind: fc.constant('tick' as const), minutes: fc.integer({ min: 1, max: 150 }) }),
);

let newProfiles = 0;

/** Applies one change through the product's ingest path (and the clock, for a tick). */
async function apply(op: Op, keys: string[], now: number): Promise<number> {
  const current = Math.floor(now / H) * H;
  const obs = (k: string, hour: number, imp: number, pos: number) => {
    const [url_id, country, language] = k.split('/');
    return {
      type: 'observation',
      url_id,
      country: country.toUpperCase(),
      language,
      hour: new Date(hour).toISOString(),
      impressions: imp,
      position: pos,
    };
  };
  switch (op.kind) {
    case 'tick':
      world.setNow(new Date(now + op.minutes * 60_000).toISOString());
      return now + op.minutes * 60_000;
    case 'hour':
      await seed(world, [obs(keys[op.pick % keys.length], current, op.imp, op.pos)]);
      return now;
    case 'late':
      // An hour from the data set's first days: before most profiles' first hour.
      await seed(world, [obs(keys[op.pick % keys.length], BASE + (op.pick % 48) * H, Math.max(1, op.imp), op.pos)]);
      return now;
    case 'correct': {
      const [o] = await queryRows<{ k: string; hour: string }>(
        world.db,
        `SELECT url_id::text || '/' || lower(country) || '/' || language AS k, hour::text FROM observations
         ORDER BY url_id, country, language, hour OFFSET $1 % (SELECT count(*) FROM observations) LIMIT 1`,
        [op.pick],
      );
      await seed(world, [obs(o.k, Date.parse(o.hour), op.imp, op.pos)]);
      return now;
    }
    case 'new': {
      const id = `0a0a0a0a-0000-4000-9000-${String(newProfiles++).padStart(12, '0')}`;
      await seed(world, [
        {
          type: 'article',
          id,
          url: `https://new.example.com/${id}`,
          domain: 'new.example.com',
          publisher: 'New',
          favicon_url: '',
          title: `New ${id}`,
          summary: '',
          body: '',
          content_language: 'en',
          date_published: null,
          date_modified: null,
          rss_feeds: null,
          meta: { meta_title: '', meta_description: '', headline: '', section: '' },
          enrichment: { actors: [], topic: [], format_group: 'article', format_type: 'news', entities: {} },
          images: [],
          markdown_content: null,
          first_seen_at: new Date(current).toISOString(),
          refreshed_at: new Date(current).toISOString(),
          categories: [],
          entities: [],
        },
        obs(`${id}/us/en`, current, op.imp, op.pos),
      ]);
      return now;
    }
  }
}

/** A profile's sort value at `end` (the windows' end), from raw observations. */
function valueAt(p: NaiveProfile, sortBy: (typeof SORTS)[number], end: number): number {
  const imp = (w: keyof typeof WINDOWS) => sumHours(p, end - WINDOWS[w] * H, end);
  switch (sortBy) {
    case 'first_seen':
      return p.first;
    case 'last_seen':
      return p.last;
    case 'avg_position':
      return p.avg;
    case 'derived':
      return 5040 * imp('1h') + 210 * imp('24h') + 30 * imp('7d') + 7 * imp('30d');
    default:
      return imp(sortBy.split('_')[1] as keyof typeof WINDOWS);
  }
}

describe('cursor iteration over a changing data set', () => {
  let clock = BASE + HOURS * H + 30 * 60_000;
  for (const sortBy of SORTS) {
    for (const order of ['desc', 'asc'] as const) {
      it(`sort_by=${sortBy} sort_order=${order}: every profile that existed at the start exactly once, in the order of its values then`, async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(fc.array(opArb, { minLength: 1, maxLength: 4 }), { minLength: 5, maxLength: 30 }), async (gaps) => {
            world.setNow(new Date(clock).toISOString());
            const start = await naiveProfiles();
            const end = Math.ceil(clock / H) * H;
            const keys = [...start.keys()].sort();
            const seen: string[] = [];
            const query = `/v2/feed?sort_by=${sortBy}&sort_order=${order}&limit=9`;
            let url = query;
            let ticks = 0;
            for (let page = 0; page < 200; page++) {
              const reply = await world.call(url, { key: tenant.key });
              expect(reply.status, show(reply)).toBe(200);
              seen.push(...reply.body.items.map((i: any) => `${i.url_id}/${i.country}/${i.language}`));
              if (!reply.body.next_cursor) break;
              url = `${query}&cursor=${reply.body.next_cursor}`;
              for (const op of gaps[page] ?? []) {
                if (op.kind === 'tick' && ticks++ >= 4) continue; // at most ~10 h per iteration (cursors last 24 h)
                clock = await apply(op, keys, clock);
              }
            }
            const old = seen.filter((k) => start.has(k));
            expect(old.length, 'no repeats').toBe(new Set(old).size);
            expect(new Set(old), 'no profile skipped').toEqual(new Set(keys));
            const sign = order === 'asc' ? 1 : -1;
            const tie = (k: string) => {
              const [u, c, l] = k.split('/');
              return `${u}|${c.toUpperCase()}|${l}`;
            };
            // avg_position is stored as real: values closer than its precision may order either way.
            const eps = sortBy === 'avg_position' ? 1e-4 : 1e-9;
            for (let n = 1; n < old.length; n++) {
              const d = valueAt(start.get(old[n])!, sortBy, end) - valueAt(start.get(old[n - 1])!, sortBy, end);
              if (Math.abs(d) > eps) expect(Math.sign(d), `${old[n - 1]} then ${old[n]} at ${n}`).toBe(sign);
              else if (d === 0) expect(tie(old[n]) > tie(old[n - 1]) ? 1 : -1, `tie at ${n}`).toBe(sign);
            }
            expect(
              seen.filter((k) => !start.has(k)),
              'profiles first written after the start are not listed',
            ).toEqual([]);
            clock += 60 * 60_000; // the next run starts an hour later (a slide before its first page)
          }),
          // The data set changes for good during a run, so a failure is reported as found (no shrinking).
          { numRuns: 1, endOnFailure: true },
        );
      }, 120_000);
    }
  }
});
