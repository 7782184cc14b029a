// Freshness (docs/DATA.md "Freshness"): every data answer carries `Data-As-Of`, the newest
// complete hour of observations, and object envelopes carry the same value as `data_as_of`; the
// watermark moves when ingest completes an hour (not while the hour is under way, never back for late
// lines); answers kept from an earlier request say how long ago with `Age`.
import { beforeAll, describe, expect, it } from 'vitest';
import { forgetCachedKeys } from '../../shared/auth/keys';
import { forgetIsolateCaches } from '../../shared/cache/memory';
import { ingest } from '../../shared/ingest/index';
import { completedHour } from '../../shared/ingest/write/watermark';
import { ARTICLE_A, geoRecords, NOW } from '../fixtures/geo';
import { seed } from '../helpers/seed';
import { callWithOutcome } from '../helpers/outcomes';
import { createWorld, show, type Tenant, type World } from '../helpers/world';

let world: World;
let tenant: Tenant;

const HOUR = 3_600_000;
const hourAt = (offsetHours: number) => new Date(Math.floor(Date.parse(NOW) / HOUR) * HOUR + offsetHours * HOUR);
const asOf = (date: Date) => date.toISOString().replace('.000Z', '+00:00');

/** One observation of article A in the US for the hour `offsetHours` after NOW's hour, ingested with the clock at `clock`. */
async function ingestHour(offsetHours: number, clock: Date) {
  const client = await world.pool().connect();
  try {
    const line = JSON.stringify({
      type: 'observation',
      url_id: ARTICLE_A,
      country: 'US',
      language: 'en',
      hour: hourAt(offsetHours).toISOString(),
      impressions: 77,
      position: 2.5,
    });
    const summary = await ingest(client, [line], { now: clock });
    expect(summary.skipped, JSON.stringify(summary.errors)).toBe(0);
  } finally {
    client.release();
  }
}

/** A data answer as a fresh isolate would compute it (no answer or watermark held in memory). */
async function fresh(path: string) {
  forgetIsolateCaches();
  const reply = await world.call(path, { key: tenant.key });
  expect(reply.status, show(reply)).toBe(200);
  return reply;
}

beforeAll(async () => {
  world = await createWorld('freshness');
  world.setNow(NOW);
  await seed(world, geoRecords());
  tenant = await world.tenant({ countries: ['US', 'GB', 'DE', 'FR'] });
}, 120_000);

describe('Data-As-Of and data_as_of', () => {
  it('the header and the envelope carry the newest complete hour, the same value', async () => {
    // The fixture's newest observation hour is NOW's hour; the wall clock is past it, so it is complete.
    const expected = asOf(hourAt(0));
    for (const path of ['/v1/geo/regions', '/v2/feed?period=7d&limit=5', '/v1/geo/languages', '/v1/entities?limit=5', '/v1/trends']) {
      const reply = await fresh(path);
      expect(reply.headers.get('Data-As-Of'), path).toBe(expected);
      expect(reply.body.data_as_of, path).toBe(expected);
    }
  });

  it('a bare array answer carries the header only; answers that are not data carry neither', async () => {
    const profiles = await fresh(`/v2/feed/${ARTICLE_A}`);
    expect(Array.isArray(profiles.body)).toBe(true);
    expect(profiles.headers.get('Data-As-Of')).toBe(asOf(hourAt(0)));
    for (const path of ['/v1/usage', '/v1/tracking/lists']) {
      const reply = await fresh(path);
      expect(reply.headers.get('Data-As-Of'), path).toBeNull();
      expect(reply.body.data_as_of, path).toBeUndefined();
    }
  });

  it('public answers carry it too, also when the edge answers from its copy (with Age)', async () => {
    forgetIsolateCaches();
    const ip = { 'CF-Connecting-IP': '198.51.100.40' };
    const first = await world.call('/public/platform-profile?domain=example.com', { headers: ip });
    expect(first.status, show(first)).toBe(200);
    expect(first.headers.get('Data-As-Of')).toBe(asOf(hourAt(0)));
    expect(first.body.data_as_of).toBe(asOf(hourAt(0)));
    const again = await world.call('/public/platform-profile?domain=example.com', { headers: ip });
    expect(again.headers.get('Data-As-Of')).toBe(asOf(hourAt(0)));
    expect(Number(again.headers.get('Age'))).toBeGreaterThanOrEqual(0);
  });

  it('a kept answer says its Age; a freshly computed one does not', async () => {
    const computed = await fresh('/v1/geo/regions?with_stats=true');
    expect(computed.headers.get('Age')).toBeNull();
    const kept = await world.call('/v1/geo/regions?with_stats=true', { key: tenant.key });
    expect(kept.headers.get('Age')).toMatch(/^\d+$/);
    expect(kept.headers.get('Data-As-Of')).toBe(computed.headers.get('Data-As-Of'));
    expect(kept.text).toBe(computed.text);
  });
});

describe('the watermark moves when ingest completes an hour', () => {
  it('not while the hour is under way, then to it once it has ended, never back for a late line', async () => {
    // A new question each time (the feed keeps an answer 30 s, with the watermark it was computed with).
    const before = (await fresh('/v2/feed?period=24h&limit=11')).headers.get('Data-As-Of');
    expect(before).toBe(asOf(hourAt(0)));
    // The next hour's first observations, 30 minutes into it: not complete yet.
    await ingestHour(1, new Date(hourAt(1).getTime() + 30 * 60_000));
    expect((await fresh('/v2/feed?period=24h&limit=12')).headers.get('Data-As-Of')).toBe(before);
    // The same hour's last lines, after it ended: complete.
    await ingestHour(1, new Date(hourAt(2).getTime() + 5 * 60_000));
    const moved = await fresh('/v2/feed?period=24h&limit=13');
    expect(moved.headers.get('Data-As-Of')).toBe(asOf(hourAt(1)));
    expect(moved.body.data_as_of).toBe(asOf(hourAt(1)));
    // A late correction of an older hour changes data, not the watermark.
    await ingestHour(-3, new Date(hourAt(3).getTime()));
    expect((await fresh('/v2/feed?period=24h&limit=14')).headers.get('Data-As-Of')).toBe(asOf(hourAt(1)));
    // The answer kept from before the hour completed still says what it was computed from.
    const kept = await world.call('/v2/feed?period=24h&limit=11', { key: tenant.key });
    expect(kept.headers.get('Data-As-Of')).toBe(before);
    expect(kept.headers.get('Age')).toMatch(/^\d+$/);
  });

  it('an answer computed once the held watermark is 2 s old reads it beside its queries: it and the next answer name the new hour', async () => {
    const held = (await fresh('/v1/articles?sort_by=last_seen&limit=15')).headers.get('Data-As-Of');
    expect(held).toBe(asOf(hourAt(1)));
    await ingestHour(2, new Date(hourAt(3).getTime() + 5 * 60_000));
    // The isolate still holds the watermark it read above, now past its 2 s (shared/http/freshness.ts).
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const computed = await world.call('/v1/articles?sort_by=last_seen&limit=16', { key: tenant.key });
    expect(computed.status, show(computed)).toBe(200);
    expect(computed.headers.get('Data-As-Of')).toBe(asOf(hourAt(2)));
    const again = await world.call('/v1/articles?sort_by=last_seen&limit=16', { key: tenant.key });
    expect(again.headers.get('Data-As-Of')).toBe(asOf(hourAt(2)));
  });

  it("completedHour: the run's newest hour, at most the last hour that ended by its clock", () => {
    const h = hourAt(0);
    expect(completedHour(h, new Date(h.getTime() + HOUR))).toEqual(h);
    expect(completedHour(h, new Date(h.getTime() + 59 * 60_000))).toEqual(hourAt(-1));
    expect(completedHour(hourAt(-10), new Date(h.getTime() + HOUR))).toEqual(hourAt(-10));
  });
});

describe('while the watermark cannot be read', () => {
  it('an answer built from a kept value reports the watermark the value was computed with', async () => {
    const path = '/v1/entities/trending?region=us&period=7d&limit=3';
    // The key read afresh here: an isolate keeps it 30 s of wall time (shared/auth/keys.ts), which on a
    // loaded machine could otherwise run out before the request below, whose key lookup would then fail.
    forgetCachedKeys();
    const computed = await fresh(path);
    expect(computed.body.data_as_of).toBe(computed.headers.get('Data-As-Of'));
    // A fresh isolate (no watermark held) with PostgreSQL unreachable: the key is still held, the value is in Redis.
    forgetIsolateCaches();
    const down = await callWithOutcome(world, path, { key: tenant.key, env: { NEON_HTTP_ENDPOINT: 'http://127.0.0.1:1/sql' } });
    expect(down.status, show(down)).toBe(200);
    expect(down.outcome).toBe('hit');
    expect(down.headers.get('Data-As-Of')).toBe(computed.headers.get('Data-As-Of'));
    expect(down.body).toEqual(computed.body);
  });
});
