// `npm run bench -- tracking [--lines 1000000|all | --db <name>] [--cold 7] [--warm 50]`
// Metrics of a 200-item entity list over 30 days, inside workerd (the all-in-one Worker as wrangler
// bundles it, in Miniflare) against a local gateway in front of the real PostgreSQL (a loaded
// benchmark database) and Redis: cold (cache cleared, computed in the request), warm from the
// isolate's memory, warm from Redis (a second copy of the Worker with ISOLATE_CACHE_SECONDS=0), a
// bare route of the same Worker (the JSON 404) and the keyed trivial route of the middleware
// bench's Worker (the same keyed chain, a trivial handler), interleaved; medians, p95 and the warm
// reads' ratio to the keyed trivial route.
import { createKey } from '../../shared/admin/keys';
import { createList } from '../../shared/admin/lists';
import { createProject } from '../../shared/admin/projects';
import { createDb } from '../../shared/db/client';
import { connectTo, runPrefix, startBenchServices } from '../lib/bench-harness';
import type { RunningWorker } from '../lib/worker';
import { benchDataDb } from './rollups-load';
import { KEYED_PING, startBenchWorker } from './middleware';
import { fmt, fmtRatio, log, median, p95, ratio, table } from './stats';

const arg = (argv: string[], name: string, fallback: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};

export async function run(argv: string[]): Promise<void> {
  const dbName = await benchDataDb(argv);
  const coldRuns = Number(arg(argv, '--cold', '7'));
  const warmRuns = Number(arg(argv, '--warm', '50'));
  const pg = await connectTo(dbName);
  const {
    rows: [data],
  } = await pg.query<{ observations: string; profiles: string; now: Date; markets: string[] }>(
    `SELECT (SELECT count(*) FROM observations) AS observations, (SELECT count(*) FROM url_profiles) AS profiles,
            (SELECT max(hour) FROM observations) + interval '30 minutes' AS now,
            (SELECT array_agg(DISTINCT country) FROM market_days) AS markets`,
  );
  const { rows: top } = await pg.query<{ id: string }>(
    `SELECT key AS id FROM url_dimensions WHERE kind = 'entity' GROUP BY key ORDER BY count(*) DESC LIMIT 200`,
  );
  await pg.end();
  const now = new Date(data.now).toISOString();
  log(
    `data: ${fmt(Number(data.observations))} observations, ${fmt(Number(data.profiles))} profiles, ${data.markets.length} markets; now = ${now}`,
  );

  const services = await startBenchServices({
    database: dbName,
    redisPrefix: runPrefix('bench_tracking'),
    now,
    bindings: {
      // Cold pages are computed in the request (not queued), so that the cost of computing is measured.
      AGGREGATE_INLINE_COST: '1000000000000',
      // The bench tells hits from misses by X-Aggregate-Cache, which project keys are not sent otherwise.
      CACHE_OUTCOME_HEADER: 'all',
    },
  });
  const db = createDb(services.bindings);
  const project = await createProject(db, {
    name: `bench tracking ${now}`,
    plan: 'scale',
    countries: data.markets,
    rateLimitPerMinute: 1_000_000,
  });
  const { key } = await createKey(db, { projectId: project.id, name: 'bench' });
  const list = await createList(db, { projectId: project.id, kind: 'entity', name: 'bench 200', items: top.map((t) => ({ key: t.id })) });

  try {
    log('bundling the all-in-one Worker with wrangler (twice: with and without the isolate cache)');
    const worker = await services.worker();
    const redisOnly = await services.worker({ ISOLATE_CACHE_SECONDS: '0' });
    const chain = await services.worker({}, startBenchWorker);
    const metricsPath = `/v1/tracking/lists/${list.id}/metrics?period=30d&limit=200`;
    // The same page with one item: the warm path without the 200-item body (payload cost apart).
    const smallPath = metricsPath.replace('limit=200', 'limit=1');
    let bytes = 0;
    const call = async (target: { mf: RunningWorker['mf']; url: URL }, path: string, expect: number) => {
      const t = performance.now();
      const res = await target.mf.dispatchFetch(new URL(path, target.url), { headers: { 'X-API-Key': key } });
      const body = await res.text();
      const ms = performance.now() - t;
      if (res.status !== expect) throw new Error(`${path}: HTTP ${res.status} ${body.slice(0, 300)}`);
      if (path === metricsPath) bytes = new TextEncoder().encode(body).byteLength;
      return { ms, cache: res.headers.get('x-aggregate-cache') };
    };
    await call(worker, '/nope', 404);
    await call(chain, KEYED_PING, 200);
    await services.clearCache('agg');
    await call(worker, metricsPath, 200); // warm the isolate, the key cache and PostgreSQL's buffers
    await call(redisOnly, metricsPath, 200);
    await call(worker, smallPath, 200);

    const times = {
      cold: [] as number[],
      memory: [] as number[],
      small: [] as number[],
      redis: [] as number[],
      bare: [] as number[],
      keyed: [] as number[],
    };
    const expectHit = (outcome: { ms: number; cache: string | null }, what: string) => {
      if (outcome.cache !== 'hit') throw new Error(`${what} run served from ${outcome.cache}`);
      return outcome.ms;
    };
    for (let i = 0; i < Math.max(coldRuns, warmRuns); i++) {
      if (i < coldRuns) {
        await services.clearCache('agg');
        // The Redis-only copy computes: the other copy's memory would answer.
        const cold = await call(redisOnly, metricsPath, 200);
        if (cold.cache !== 'miss') throw new Error(`cold run served from ${cold.cache}`);
        times.cold.push(cold.ms);
      }
      times.memory.push(expectHit(await call(worker, metricsPath, 200), 'warm (memory)'));
      times.small.push(expectHit(await call(worker, smallPath, 200), 'warm (memory, one item)'));
      times.redis.push(expectHit(await call(redisOnly, metricsPath, 200), 'warm (Redis)'));
      times.bare.push((await call(worker, '/nope', 404)).ms);
      times.keyed.push((await call(chain, KEYED_PING, 200)).ms);
    }
    const base = median(times.bare);
    const keyed = median(times.keyed);
    const rows = (
      [
        ['bare Worker route (JSON 404)', times.bare],
        ['keyed trivial route (middleware bench Worker: full chain, trivial handler)', times.keyed],
        ["metrics, warm from the isolate's memory", times.memory],
        ['metrics, warm from memory, limit=1 (the same path with a small body)', times.small],
        ['metrics, warm from Redis (isolate cache off)', times.redis],
        ['metrics, cold (computed from the roll-ups)', times.cold],
      ] as const
    ).map(([name, t]) => [
      name,
      String(t.length),
      fmt(median(t), 1),
      fmt(p95(t), 1),
      fmtRatio(ratio(median(t), base)),
      fmtRatio(ratio(median(t), keyed)),
    ]);
    console.log(
      `\ntracking: GET ${metricsPath.replace(list.id, '{list_id}')} for a 200-entity list (top entities by publications), ` +
        `${data.markets.length} markets, body ${fmt(bytes)} bytes, workerd via Miniflare, gateway -> PostgreSQL 15 (${dbName}) + Redis 7\n`,
    );
    console.log(table(['request', 'runs', 'median ms', 'p95 ms', 'vs bare', 'vs keyed trivial'], rows));
    console.log(
      `\ncached-read ratio (warm metrics median / keyed trivial route median, same run): ` +
        `memory ${fmtRatio(ratio(median(times.memory), keyed))}, Redis ${fmtRatio(ratio(median(times.redis), keyed))}`,
    );
  } finally {
    await services.close();
  }
}
