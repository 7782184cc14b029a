// `npm run bench -- feed [--db bench_rollups] [--runs 15]`
// The feed on a loaded benchmark database, all in one run: (1) database time of each part of a first
// page (count, and keys with items) per sort, through the same query functions the Worker runs (over the
// gateway's Neon HTTP endpoint); (2) whole requests inside workerd: first page p50/p95 per sort,
// offset page 50 vs cursor page 50 vs first page, /v2/live, a cached answer, and a bare route as the
// baseline. The response cache is cleared before every uncached request. Before measuring, the
// branch's migrations are applied and the feed windows brought to the data's "now" (a full build on
// a database loaded without them; later runs find them current).
import { createKey } from '../../shared/admin/keys';
import { createProject } from '../../shared/admin/projects';
import { createDb } from '../../shared/db/client';
import { windowEnd } from '../../shared/feed/windows';
import { countProfiles, readPage, type FeedFilter } from '../../functions/feed/queries';
import { SORT_KEYS } from '../../functions/feed/schemas';
import { connectTo, runPrefix, startBenchServices } from '../lib/bench-harness';
import { migrate } from '../lib/migrations';
import { feedWindowsCurrent } from './feed-windows';
import { fmt, fmtRatio, log, median, p95, ratio, table } from './stats';
import { scopeOf, withCountry } from '../../shared/scope/scope';

const arg = (argv: string[], name: string, fallback: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};

const DAY = 86_400_000;

export async function run(argv: string[]): Promise<void> {
  const dbName = arg(argv, '--db', 'bench_rollups');
  const runs = Number(arg(argv, '--runs', '15'));
  const pg = await connectTo(dbName);
  const marker = await pg.query(`SELECT value FROM bench_meta WHERE name = 'load'`).catch(() => ({ rows: [] as unknown[] }));
  if (marker.rows.length === 0)
    throw new Error(`${dbName} has no completed load (bench_meta 'load'): load it first (npm run bench -- rollups:load)`);
  const applied = await migrate(pg);
  if (applied.length) log(`applied ${applied.join(', ')}`);
  const {
    rows: [data],
  } = await pg.query<{ profiles: string; now: Date; markets: string[] }>(
    `SELECT (SELECT count(*) FROM url_profiles) AS profiles, (SELECT max(hour) FROM observations) + interval '1 hour' AS now,
            (SELECT array_agg(DISTINCT country) FROM market_days) AS markets`,
  );
  const now = new Date(data.now);
  const end = windowEnd(now);
  const seconds = await feedWindowsCurrent(pg, now);
  let t: number;
  log(`feed windows current at ${end.toISOString()} (${fmt(seconds, 1)} s, ${fmt(Number(data.profiles))} profiles)`);
  await pg.end();

  const services = await startBenchServices({ database: dbName, redisPrefix: runPrefix('bench_feed'), now: now.toISOString() });
  const db = createDb(services.bindings);
  const project = await createProject(db, {
    name: `bench feed ${now.toISOString()}`,
    plan: 'enterprise',
    countries: data.markets,
    rateLimitPerMinute: 1_000_000,
  });
  const { key } = await createKey(db, { projectId: project.id, name: 'bench' });

  // (1) Database time of a first page, per sort: its one statement (keys and items) and the count beside it.
  const filter: FeedFilter = {
    scope: withCountry(scopeOf({ projectId: project.id, allowedCountries: data.markets, categories: null }), 'all'),
    language: null,
    categories: null,
    entities: null,
    matchAll: false,
    seenAfter: new Date(now.getTime() - 730 * DAY),
    seenBefore: null,
    firstSeenFrom: null,
  };
  const today = Math.floor((end.getTime() - 1) / DAY) * DAY;
  const dbRows: string[][] = [];
  for (const sort of SORT_KEYS) {
    const parts = { count: [] as number[], page: [] as number[] };
    for (let i = 0; i <= runs; i++) {
      t = performance.now();
      await countProfiles(db, filter, true);
      const count = performance.now() - t;
      t = performance.now();
      await readPage(
        db,
        filter,
        { sort, order: 'desc', limit: 50, offset: 0, after: null, snapshot: null },
        { end, dayStart: new Date(today - 29 * DAY), markdown: false },
      );
      const page = performance.now() - t;
      if (i === 0) continue; // the first round warms buffers and plans
      parts.count.push(count);
      parts.page.push(page);
    }
    dbRows.push([sort, fmt(median(parts.page), 1), fmt(p95(parts.page), 1), fmt(median(parts.count), 1)]);
  }

  try {
    log('bundling the all-in-one Worker with wrangler');
    const { mf, url } = await services.worker();
    const call = async (path: string, expect = 200) => {
      const started = performance.now();
      const res = await mf.dispatchFetch(new URL(path, url), { headers: { 'X-API-Key': key } });
      const body = await res.text();
      const ms = performance.now() - started;
      if (res.status !== expect) throw new Error(`${path}: HTTP ${res.status} ${body.slice(0, 300)}`);
      return { ms, body: expect === 200 ? JSON.parse(body) : null };
    };
    const uncached = async (path: string) => {
      await services.clearCache('feed');
      return call(path);
    };
    await call('/nope', 404);
    await uncached('/v2/feed');

    // A cursor of page 50 (limit 50): walk 49 pages once.
    let cursor = '';
    for (let page = 1; page < 50; page++) {
      const reply = await uncached(`/v2/feed?sort_by=derived${cursor ? `&cursor=${cursor}` : ''}`);
      cursor = reply.body.next_cursor;
    }
    const times: Record<string, number[]> = { bare: [], cached: [], live: [], offset50: [], cursor50: [] };
    for (const sort of ['(default)', ...SORT_KEYS]) times[sort] = [];
    for (let i = 0; i < runs; i++) {
      for (const sort of ['(default)', ...SORT_KEYS])
        times[sort].push((await uncached(sort === '(default)' ? '/v2/feed' : `/v2/feed?sort_by=${sort}`)).ms);
      times.offset50.push((await uncached('/v2/feed?sort_by=derived&offset=2450')).ms);
      times.cursor50.push((await uncached(`/v2/feed?sort_by=derived&cursor=${cursor}`)).ms);
      times.live.push((await uncached('/v2/live?since_minutes=1440')).ms);
      await call('/v2/feed?sort_by=derived');
      times.cached.push((await call('/v2/feed?sort_by=derived')).ms);
      times.bare.push((await call('/nope', 404)).ms);
    }
    const base = median(times.bare);
    const first = median(times.derived);
    const row = (name: string, list: number[], vs = base) => [
      name,
      String(list.length),
      fmt(median(list), 1),
      fmt(p95(list), 1),
      fmtRatio(ratio(median(list), vs)),
    ];
    console.log(
      `\nfeed: ${fmt(Number(data.profiles))} profiles, ${data.markets.length} markets, now = ${now.toISOString()}, limit 50, ${dbName}\n`,
    );
    console.log("database time per first page (ms; query functions over the gateway's Neon HTTP endpoint; count runs beside keys)\n");
    console.log(table(['sort (desc)', 'page p50 (keys + items)', 'page p95', 'count p50'], dbRows));
    console.log('\nwhole requests in workerd (ms; response cache cleared before each uncached request)\n');
    console.log(
      table(
        ['request', 'runs', 'p50', 'p95', 'vs bare'],
        [
          row('bare Worker route (JSON 404)', times.bare),
          row('/v2/feed cached answer (sort_by=derived)', times.cached),
          ...['(default)', ...SORT_KEYS].map((s) => row(`/v2/feed first page, sort ${s}`, times[s])),
          row('/v2/live?since_minutes=1440', times.live),
        ],
      ),
    );
    console.log(
      `\n${table(
        ['page 50 (sort_by=derived)', 'runs', 'p50', 'p95', 'vs first page'],
        [
          row('first page', times.derived, first),
          row('offset=2450', times.offset50, first),
          row('cursor (page 50)', times.cursor50, first),
        ],
      )}`,
    );
  } finally {
    await services.close();
  }
}
