// GET /v1/tracking/lists and /v1/tracking/lists/{list_id}.
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../shared/admin/keys';
import { createList } from '../../shared/admin/lists';
import { createWorld, show, type Tenant, type World } from '../helpers/world';

const NOW = new Date('2026-11-20T12:00:00Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000);

let world: World;
let own: Tenant;
let other: Tenant;
const ids: Record<string, string> = {};

beforeAll(async () => {
  world = await createWorld('tracking_lists');
  world.setNow(NOW.toISOString());
  own = await world.tenant({ plan: 'grow', countries: ['US', 'GB'] });
  other = await world.tenant({ plan: 'scale', countries: ['US'] });
  const make = async (name: string, input: Parameters<typeof createList>[1]) => (ids[name] = (await createList(world.db, input, NOW)).id);
  await make('entity', {
    projectId: own.projectId,
    kind: 'entity',
    name: 'People',
    createdAt: daysAgo(9),
    items: [
      { key: 'Ada Lovelace', name: 'Ada Lovelace', type: 'person', addedAt: daysAgo(8) },
      { key: '7b9a8d4e-1c2f-4a3b-9d8e-7f6a5b4c3d2e', name: 'Alan Turing', type: 'person', addedAt: daysAgo(2) },
    ],
  });
  await make('publisher', {
    projectId: own.projectId,
    kind: 'publisher',
    name: 'Rivals',
    createdAt: daysAgo(5),
    items: [
      { key: 'https://WWW.Example.com/news', addedAt: daysAgo(4) },
      { key: 'other.org', addedAt: daysAgo(3) },
    ],
  });
  await make('category', {
    projectId: own.projectId,
    kind: 'category',
    name: 'Sections',
    createdAt: daysAgo(1),
    items: [{ key: '/Sports/Soccer' }],
  });
  await make('mention', {
    projectId: own.projectId,
    kind: 'mention',
    name: 'Brand',
    createdAt: daysAgo(7),
    countries: ['us', 'GB'],
    langs: ['en'],
    terms: [
      { keyword: 'heat pump', matchType: 'broad' },
      { keyword: 'heat pump', matchType: 'exact' },
      { keyword: 'solar', matchType: 'phrase' },
    ],
  });
  await make('foreign', { projectId: other.projectId, kind: 'entity', name: 'Not yours', items: [{ key: 'Grace Hopper' }] });
});

describe('GET /v1/tracking/lists (happy)', () => {
  it("lists the project's lists newest-updated first with usage per kind", async () => {
    const reply = await world.call('/v1/tracking/lists', { key: own.key });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.lists.map((l: any) => l.name)).toEqual(['Sections', 'Rivals', 'Brand', 'People']);
    expect(reply.body).toMatchObject({ total: 4, limit: 50, offset: 0 });
    expect(reply.body.usage).toEqual({
      entity: { used: 2, limit: 100 },
      category: { used: 1, limit: 25 },
      publisher: { used: 2, limit: 50 },
      trend: { used: 0, limit: 100 },
      mention: { used: 2, limit: 100 },
    });
    const people = reply.body.lists.find((l: any) => l.name === 'People');
    expect(people).toEqual({
      id: ids.entity,
      kind: 'entity',
      name: 'People',
      color_index: 0,
      item_count: 2,
      created_at: '2026-11-11T12:00:00+00:00',
      updated_at: '2026-11-11T12:00:00+00:00',
    });
  });

  it('mention lists carry the mention fields', async () => {
    const reply = await world.call('/v1/tracking/lists?kind=mention', { key: own.key });
    expect(reply.body.total).toBe(1);
    expect(reply.body.lists[0]).toMatchObject({
      kind: 'mention',
      countries: ['US', 'GB'],
      langs: ['EN'],
      search_scope: 'title',
      match_types: ['broad', 'exact', 'phrase'],
      active: true,
      matches_count: 0,
      new_publications_24h: 0,
      scan_status: 'succeeded',
      scan_error: null,
      last_scanned_at: '2026-11-20T12:00:00+00:00',
      next_scan_at: '2026-11-20T13:00:00+00:00',
    });
  });

  it('pages with limit and offset; total counts every matching list', async () => {
    const reply = await world.call('/v1/tracking/lists?limit=2&offset=1', { key: own.key });
    expect(reply.body.lists.map((l: any) => l.name)).toEqual(['Rivals', 'Brand']);
    expect(reply.body).toMatchObject({ total: 4, limit: 2, offset: 1 });
    const beyond = await world.call('/v1/tracking/lists?offset=10', { key: own.key });
    expect(beyond.body).toMatchObject({ lists: [], total: 4 });
  });

  it('an internal key reads a named project', async () => {
    const internal = await world.internalKey();
    const reply = await world.call(`/v1/tracking/lists?project_id=${other.projectId}`, { key: internal });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.lists.map((l: any) => l.name)).toEqual(['Not yours']);
    // The caps of the named project's plan (Scale), not of the project-less key.
    expect(reply.body.usage.entity).toEqual({ used: 1, limit: 1_000 });
  });
});

describe('GET /v1/tracking/lists/{list_id} (happy)', () => {
  it('returns an entity list with items newest added first', async () => {
    const reply = await world.call(`/v1/tracking/lists/${ids.entity}`, { key: own.key });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.items).toEqual([
      { key: '7b9a8d4e-1c2f-4a3b-9d8e-7f6a5b4c3d2e', name: 'Alan Turing', type: 'person', added_at: '2026-11-18T12:00:00+00:00' },
      { key: 'Ada Lovelace', name: 'Ada Lovelace', type: 'person', added_at: '2026-11-12T12:00:00+00:00' },
    ]);
  });

  it('normalizes publisher keys to clean lower-case domains', async () => {
    const reply = await world.call(`/v1/tracking/lists/${ids.publisher}`, { key: own.key });
    expect(reply.body.items.map((i: any) => i.key)).toEqual(['other.org', 'example.com']);
  });

  it('returns a mention list with terms, keywords and extraction start', async () => {
    const reply = await world.call(`/v1/tracking/lists/${ids.mention}`, { key: own.key });
    expect(reply.status, show(reply)).toBe(200);
    expect(reply.body.mentions).toEqual(['heat pump', 'solar']);
    expect(reply.body.extraction_started_at).toBe('2026-11-13T12:00:00+00:00');
    expect(reply.body.items.map((t: any) => [t.raw_text, t.match_type, t.position, t.matches_count])).toEqual([
      ['heat pump', 'broad', 0, 0],
      ['heat pump', 'exact', 1, 0],
      ['solar', 'phrase', 2, 0],
    ]);
    expect(reply.body.items[0].id).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('tracking lists errors', () => {
  it.each([
    ['/v1/tracking/lists?kind=people', ['query', 'kind'], 'enum'],
    ['/v1/tracking/lists?limit=0', ['query', 'limit'], 'greater_than_equal'],
    ['/v1/tracking/lists?limit=201', ['query', 'limit'], 'less_than_equal'],
    ['/v1/tracking/lists?offset=-1', ['query', 'offset'], 'greater_than_equal'],
    ['/v1/tracking/lists/not-a-uuid', ['path', 'list_id'], 'uuid_parsing'],
  ])('%s -> 422', async (path, loc, type) => {
    const reply = await world.call(path, { key: own.key });
    expect(reply.status, show(reply)).toBe(422);
    expect(reply.body.detail).toEqual([{ loc, msg: expect.any(String), type }]);
  });

  it('404 tracking list not found for an unknown id', async () => {
    const reply = await world.call('/v1/tracking/lists/00000000-0000-4000-8000-000000000000', { key: own.key });
    expect(reply.status, show(reply)).toBe(404);
    expect(reply.body).toEqual({ detail: 'tracking list not found' });
  });
});

describe('tracking lists security', () => {
  it('needs a key', async () => {
    expect((await world.call('/v1/tracking/lists')).status).toBe(401);
    expect((await world.call(`/v1/tracking/lists/${ids.entity}`)).status).toBe(401);
  });

  it("another project's list is 404, exactly like an unknown id", async () => {
    const reply = await world.call(`/v1/tracking/lists/${ids.foreign}`, { key: own.key });
    expect(reply.status, show(reply)).toBe(404);
    expect(reply.body).toEqual({ detail: 'tracking list not found' });
  });

  it('a project key cannot read another project with project_id', async () => {
    const reply = await world.call(`/v1/tracking/lists?project_id=${other.projectId}`, { key: own.key });
    expect(reply.status, show(reply)).toBe(403);
  });

  it('403 project_key_required for keys without a project', async () => {
    const internal = await world.internalKey();
    const legacy = (await createKey(world.db, { projectId: null, kind: 'legacy', name: 'old' })).key;
    for (const [key, path] of [
      [internal, '/v1/tracking/lists'],
      [internal, `/v1/tracking/lists/${ids.entity}`],
      [legacy, `/v1/tracking/lists?project_id=${own.projectId}`],
    ]) {
      const reply = await world.call(path, { key });
      expect(reply.status, show(reply)).toBe(403);
      expect(reply.body.detail.code).toBe('project_key_required');
    }
  });
});
