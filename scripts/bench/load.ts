// `npm run bench -- load [--duration 60] [--connections 10]`
// Sustained load on the all-in-one Worker as `wrangler deploy` bundles it, in workerd, through a
// local gateway to the machine's real PostgreSQL and Redis, on a copy of the demo database
// (scripts/lib/demo-stack.ts). autocannon drives a realistic mix at a fixed concurrency for the
// duration, then a bare route (the JSON 404: routing and error handling only) the same way, in the
// same run. Reported: rps, p50/p99 overall and per route, errors, status counts, and what one
// request of each route costs PostgreSQL and Redis (gateway round trips, measured alone and warm).
// Routes of the mix that the served /openapi.json does not have yet (feed, public) are skipped,
// so the mix grows with the API.
import autocannon from 'autocannon';
import { gatewayStats } from '../lib/bench-harness';
import { FUZZ_NOW, startStack } from '../lib/demo-stack';
import { fmt, log, median, quantile, table } from './stats';

interface MixEntry {
  name: string;
  /** A path of the served OpenAPI document this entry needs. */
  needs: string;
  path: string;
  weight: number;
  keyed: boolean;
}

const arg = (argv: string[], name: string, fallback: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};

export async function run(argv: string[]): Promise<void> {
  const duration = Number(arg(argv, '--duration', '60'));
  const connections = Number(arg(argv, '--connections', '10'));
  const stack = await startStack({
    database: `bench_load_${process.pid}`,
    log,
    gatewayProcess: true,
    // autocannon is one client address: lift the per-IP limit of the public routes as the keyed one is.
    // X-Aggregate-Cache to every key: the bench reports the herd's outcomes by it.
    bindings: { PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000', CACHE_OUTCOME_HEADER: 'all' },
  });
  try {
    const key = stack.keys.find((k) => k.name === 'full')!.key;
    const base = stack.url;
    const get = async (path: string, keyed = true) => {
      const res = await fetch(new URL(path, base), { headers: keyed ? { 'X-API-Key': key } : {} });
      return { status: res.status, body: (await res.json().catch(() => null)) as any };
    };
    const doc = (await get('/openapi.json', false)).body;
    const lists = (await get('/v1/tracking/lists')).body.lists as { id: string; kind: string }[];
    const publisherList = lists.find((l) => l.kind === 'publisher')!.id;
    const articles = (await get('/v1/articles?limit=20')).body.articles as { domain?: string; id: string }[];
    const domain = articles.find((a) => a.domain)?.domain ?? 'example.com';

    const candidates: MixEntry[] = [
      {
        name: 'tracking metrics (warm)',
        needs: '/v1/tracking/lists/{list_id}/metrics',
        path: `/v1/tracking/lists/${publisherList}/metrics?period=7d`,
        weight: 3,
        keyed: true,
      },
      { name: 'tracking lists', needs: '/v1/tracking/lists', path: '/v1/tracking/lists', weight: 1, keyed: true },
      { name: 'geo regions', needs: '/v1/geo/regions', path: '/v1/geo/regions?with_stats=true', weight: 2, keyed: true },
      { name: 'geo region', needs: '/v2/geo/regions/{alpha_2}', path: '/v2/geo/regions/US', weight: 1, keyed: true },
      { name: 'articles page', needs: '/v1/articles', path: '/v1/articles?limit=20', weight: 1, keyed: true },
      { name: 'usage', needs: '/v1/usage', path: '/v1/usage', weight: 1, keyed: true },
      { name: 'feed page', needs: '/v2/feed', path: '/v2/feed?limit=20', weight: 2, keyed: true },
      {
        name: 'public check',
        needs: '/public/platform-profile',
        path: `/public/platform-profile?domain=${encodeURIComponent(domain)}`,
        weight: 1,
        keyed: false,
      },
    ];
    const mix = candidates.filter((c) => doc.paths[c.needs]);
    const skipped = candidates.filter((c) => !doc.paths[c.needs]).map((c) => c.name);
    if (skipped.length) log(`not in this API yet, left out of the mix: ${skipped.join(', ')}`);

    // Cost of one warm request of each route alone: gateway round trips per request.
    const counts = gatewayStats(stack.gateway);
    const stats = () => counts.read();
    const cost = new Map<string, { sql: number; redis: number; ms: number }>();
    for (const entry of mix) {
      for (let i = 0; i < 3; i++) {
        const warm = await get(entry.path, entry.keyed); // warms caches (aggregates, key cache)
        if (warm.status !== 200)
          throw new Error(`${entry.name}: ${entry.path} answers ${warm.status} ${JSON.stringify(warm.body).slice(0, 300)}`);
      }
      const before = await stats();
      const times: number[] = [];
      const n = 20;
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await get(entry.path, entry.keyed);
        times.push(performance.now() - t);
      }
      const after = await stats();
      cost.set(entry.name, { sql: (after.sql - before.sql) / n, redis: (after.redis - before.redis) / n, ms: median(times) });
    }

    // The thundering herd (README "Single flight for aggregates"): 100 concurrent identical cold requests for the demo's large
    // entity list (limit 200, 6-day custom window, hour grain), next to one such request alone.
    const large =
      lists.find((l) => l.kind === 'entity' && (l as any).name === 'Everything (large)')?.id ?? lists.find((l) => l.kind === 'entity')!.id;
    const herdPath = (day: number) =>
      `/v1/tracking/lists/${large}/metrics?limit=200&grain=hour&period=custom` +
      `&date_from=2026-11-0${day}T00:00:00Z&date_to=2026-11-${String(day + 6).padStart(2, '0')}T00:00:00Z`;
    const timed = async (path: string) => {
      const res = await fetch(new URL(path, base), { headers: { 'X-API-Key': key } });
      await res.arrayBuffer();
      return { status: res.status, cache: res.headers.get('x-aggregate-cache') ?? '', retryAfter: res.headers.get('retry-after') };
    };
    const wave = async (path: string, n: number) => {
      const before = await stats();
      const t = performance.now();
      const replies = await Promise.all(Array.from({ length: n }, () => timed(path)));
      const ms = performance.now() - t;
      const after = await stats();
      const outcomes: Record<string, number> = {};
      for (const r of replies) {
        const outcome = `${r.status} ${r.cache || (r.retryAfter ? `Retry-After ${r.retryAfter}` : '')}`.trim();
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
      const named = Object.entries(outcomes)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ');
      return [fmt(ms), named, fmt(after.sql - before.sql), fmt(after.redis - before.redis)];
    };
    // The herd against what it should cost: one computation (alone) plus 100 warm answers.
    const alone = await wave(herdPath(1), 1);
    const warm = await wave(herdPath(1), 100);
    const herd = await wave(herdPath(2), 100);
    const herdReport = table(
      ['cold request for the large list (limit 200, 6 days, hour grain)', 'wall ms', 'outcomes', 'PostgreSQL round trips', 'Redis calls'],
      [
        ['1 alone (cold)', ...alone],
        ['100 concurrent, the same again (warm)', ...warm],
        ['100 concurrent identical cold (the herd)', ...herd],
      ],
    );
    log(`herd: ${herd[0]} ms (${herd[1]}); one computation ${alone[0]} ms + 100 warm ${warm[0]} ms`);

    // The mix under load: every connection cycles through a weighted, interleaved sequence.
    const latencies = new Map<string, number[]>(mix.map((m) => [m.name, []]));
    const statuses = new Map<string, Record<number, number>>(mix.map((m) => [m.name, {}]));
    const sequence = mix
      .flatMap((m) => Array.from({ length: m.weight }, (_, i) => ({ m, order: (i + 0.5) / m.weight })))
      .sort((a, b) => a.order - b.order)
      .map((x) => x.m);
    const requests = sequence.map((m) => ({
      method: 'GET' as const,
      path: m.path,
      headers: m.keyed ? { 'x-api-key': key } : {},
      setupRequest: (req: any, context: any) => {
        context.started = performance.now();
        return req;
      },
      onResponse: (status: number, _body: string, context: any) => {
        latencies.get(m.name)!.push(performance.now() - context.started);
        const counts = statuses.get(m.name)!;
        counts[status] = (counts[status] ?? 0) + 1;
      },
    }));
    log(`mix: ${sequence.map((m) => m.name).join(' -> ')}; ${connections} connections for ${duration} s`);
    const mixed = await autocannon({ url: base.toString(), connections, duration, requests });
    log(`bare route: ${connections} connections for ${Math.min(duration, 20)} s`);
    const bare = await autocannon({ url: new URL('/bare-route-404', base).toString(), connections, duration: Math.min(duration, 20) });

    const codes = (r: any) =>
      Object.entries(r.statusCodeStats ?? {})
        .map(([s, v]: [string, any]) => `${s}: ${fmt(v.count)}`)
        .join(', ');
    console.log(`\nLoad: ${connections} connections, mix ${duration} s, bare ${Math.min(duration, 20)} s (demo data, now = ${FUZZ_NOW})\n`);
    console.log(
      table(
        ['run', 'requests', 'rps', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'statuses'],
        [
          [
            'mix',
            fmt(mixed.requests.total),
            fmt(mixed.requests.average),
            fmt(mixed.latency.p50),
            fmt(mixed.latency.p99),
            fmt(mixed.errors),
            fmt(mixed.non2xx),
            codes(mixed),
          ],
          [
            'bare route (JSON 404)',
            fmt(bare.requests.total),
            fmt(bare.requests.average),
            fmt(bare.latency.p50),
            fmt(bare.latency.p99),
            fmt(bare.errors),
            '(all 404 by design)',
            codes(bare),
          ],
          [
            'mix / bare',
            '',
            `${fmt(mixed.requests.average / bare.requests.average, 2)}x`,
            `${fmt(mixed.latency.p50 / Math.max(bare.latency.p50, 0.001), 1)}x`,
            '',
            '',
            '',
            '',
          ],
        ],
      ),
    );
    console.log(`\nSingle flight\n\n${herdReport}`);
    console.log('\nPer route (under load: p50/p99 and statuses; alone and warm: median and gateway round trips per request)\n');
    console.log(
      table(
        ['route', 'weight', 'requests', 'p50 ms', 'p99 ms', 'statuses', 'alone ms', 'PostgreSQL / req', 'Redis / req'],
        mix.map((m) => {
          const t = latencies.get(m.name)!;
          const c = cost.get(m.name)!;
          const s = Object.entries(statuses.get(m.name)!)
            .map(([k, v]) => `${k}: ${fmt(v)}`)
            .join(', ');
          return [m.name, m.weight, fmt(t.length), fmt(median(t)), fmt(quantile(t, 0.99)), s, fmt(c.ms), fmt(c.sql, 2), fmt(c.redis, 2)];
        }),
      ),
    );
    const unplanned = mixed.non2xx - (mixed.statusCodeStats?.['429']?.count ?? 0);
    console.log(`\nerrors: ${mixed.errors}, non-2xx other than 429: ${unplanned} (target: 0 and 0)`);
    if (mixed.errors || unplanned) process.exitCode = 1;
  } finally {
    await stack.dispose();
  }
}
