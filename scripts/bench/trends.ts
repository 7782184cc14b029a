// `npm run bench -- trends [--scale bench|demo] [--runs 25] [--http 30]`
// The trends area on the loaded bench set (bench_rollups: 2,000 trends, ~320k assignments):
// 1. database time: the routes' own query functions over a direct PostgreSQL connection, for every
//    sort x filter combination of the list, detail, articles, edges and hierarchy, unrestricted and
//    with a one-market key, against `SELECT 1` in the same run;
// 2. end to end inside workerd (the bundled Worker, gateway -> PostgreSQL + Redis): list, detail,
//    articles, themes and the roll-up cold (cache cleared, computed in the request) and warm, against
//    the bare JSON 404 route. Medians and p95.
import type pg from 'pg';
import { createKey } from '../../shared/admin/keys';
import { createProject } from '../../shared/admin/projects';
import type { Db } from '../../shared/db/client';
import { createDb } from '../../shared/db/client';
import { listTrendArticles } from '../../functions/trends/articles-query';
import { listThemes, listTopics } from '../../functions/trends/hierarchy-queries';
import { getTrend, listEdges, listTrends, type TrendFilter } from '../../functions/trends/queries';
import { scopeOf, type Scope } from '../../shared/scope/scope';
import { runPrefix, startBenchServices } from '../lib/bench-harness';
import { ensureRollupsData, rollupsDb } from './rollups-load';
import { fmt, fmtRatio, log, median, p95, ratio, table } from './stats';

const arg = (argv: string[], name: string, fallback: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};

/** The query modules take a Db and use only `$client.query`: a direct pg client measures database time. */
const direct = (client: pg.Client) =>
  ({ $client: { query: async (text: string, params: unknown[]) => (await client.query(text, params)).rows } }) as unknown as Db;

async function timeIt(runs: number, fn: () => Promise<unknown>): Promise<number[]> {
  await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

interface Sample {
  id: string;
  topic: string;
  theme: string;
  articles: number;
}

async function samples(client: pg.Client): Promise<{ big: Sample; typical: Sample; counts: Record<string, number> }> {
  const pick = async (order: string) =>
    (
      await client.query<Sample>(
        `SELECT t.id::text, t.topic_id::text AS topic, n.parent_id::text AS theme, t.article_count AS articles
     FROM trends t JOIN hierarchy_nodes n ON n.id = t.topic_id ORDER BY ${order} LIMIT 1`,
      )
    ).rows[0]!;
  const big = await pick('t.article_count DESC, t.id');
  const typical = await pick(
    `abs(t.article_count - (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY article_count) FROM trends)), t.id`,
  );
  const {
    rows: [counts],
  } = await client.query(`SELECT (SELECT count(*) FROM trends)::int AS trends, (SELECT count(*) FROM trend_articles)::int AS assignments,
    (SELECT count(*) FROM trend_edges)::int AS edges, (SELECT count(*) FROM trend_days)::int AS trend_days`);
  return { big, typical, counts };
}

async function databaseTimes(client: pg.Client, runs: number, s: { big: Sample; typical: Sample }) {
  const db = direct(client);
  const base = median(await timeIt(runs, () => client.query('SELECT 1')));
  const rows: string[][] = [];
  const add = (name: string, t: number[]) => rows.push([name, fmt(median(t), 2), fmt(p95(t), 2), fmtRatio(ratio(median(t), base))]);
  const scopes: [string, Scope][] = [
    ['all markets', scopeOf({ projectId: null, allowedCountries: null, categories: null })],
    ['US key', scopeOf({ projectId: null, allowedCountries: ['US'], categories: null })],
  ];
  const filters: [string, Partial<TrendFilter>][] = [
    ['no filter', {}],
    ['min_articles=0', { minArticles: 0 }],
    ['min_articles=100', { minArticles: 100 }],
    ['state=hot', { state: 'hot' }],
    ['structural_type=cyclic', { structuralType: 'cyclic' }],
    ['semantic_type=news', { semanticType: 'news' }],
    ['semantic_type=unclassified', { semanticType: 'unclassified' }],
    ['topic_id', { topicId: s.big.topic }],
    ['theme_id', { themeId: s.big.theme }],
  ];
  const listTimes: number[] = [];
  for (const [scopeName, scope] of scopes) {
    for (const sortBy of ['last_article_at', 'first_seen_at', 'article_count'] as const) {
      for (const sortOrder of ['desc', 'asc'] as const) {
        for (const [filterName, filter] of filters) {
          const t = await timeIt(runs, () => listTrends(db, scope, { minArticles: 1, sortBy, sortOrder, limit: 50, offset: 0, ...filter }));
          listTimes.push(median(t));
          if (sortOrder === 'desc' && (scopeName === 'all markets' || filterName === 'no filter'))
            add(`list ${sortBy} desc, ${filterName} (${scopeName})`, t);
        }
      }
    }
  }
  rows.push([
    `list: all ${listTimes.length} sort x order x filter x scope combinations, max of medians`,
    fmt(Math.max(...listTimes), 2),
    '',
    fmtRatio(ratio(Math.max(...listTimes), base)),
  ]);
  const all = scopes[0][1];
  for (const [name, sample] of [
    ['largest', s.big],
    ['median', s.typical],
  ] as const) {
    add(`detail, ${name} trend (${fmt(sample.articles)} articles)`, await timeIt(runs, () => getTrend(db, all, sample.id)));
    for (const sortBy of ['first_seen_at', 'published_at', 'assignment_score'] as const) {
      add(
        `articles by ${sortBy}, ${name} trend`,
        await timeIt(runs, () => listTrendArticles(db, all, sample.id, { sortBy, sortOrder: 'desc', limit: 50, offset: 0 })),
      );
    }
  }
  add(
    'articles, largest trend, US key',
    await timeIt(runs, () =>
      listTrendArticles(db, scopes[1][1], s.big.id, { sortBy: 'first_seen_at', sortOrder: 'desc', limit: 50, offset: 0 }),
    ),
  );
  add('children, largest trend', await timeIt(runs, () => listEdges(db, all, s.big.id, 'child')));
  add('themes (all markets)', await timeIt(runs, () => listThemes(db, all)));
  add('themes (US key)', await timeIt(runs, () => listThemes(db, scopes[1][1])));
  add('topics of a theme (all markets)', await timeIt(runs, () => listTopics(db, all, s.big.theme)));
  add(
    'topic trends, largest topic',
    await timeIt(runs, () =>
      listTrends(db, all, { topicId: s.big.topic, minArticles: 0, sortBy: 'last_article_at', sortOrder: 'desc', limit: 50, offset: 0 }),
    ),
  );
  return { base, rows };
}

async function httpTimes(dbName: string, now: string, runs: number, s: { big: Sample; typical: Sample }, markets: string[]) {
  const services = await startBenchServices({
    database: dbName,
    redisPrefix: runPrefix('bench_trends'),
    now,
    bindings: {
      // Cold roll-ups are computed in the request (not queued), so that the cost of computing is measured.
      AGGREGATE_INLINE_COST: '1000000000000',
      // The bench tells hits from misses by X-Aggregate-Cache, which project keys are not sent otherwise.
      CACHE_OUTCOME_HEADER: 'all',
    },
  });
  const db = createDb(services.bindings);
  const project = await createProject(db, {
    name: `bench trends ${now}`,
    plan: 'scale',
    countries: markets,
    rateLimitPerMinute: 1_000_000,
  });
  const { key } = await createKey(db, { projectId: project.id, name: 'bench' });
  try {
    log('bundling the all-in-one Worker with wrangler');
    const { mf, url } = await services.worker();
    const call = async (path: string, expect: number) => {
      const t = performance.now();
      const res = await mf.dispatchFetch(new URL(path, url), { headers: { 'X-API-Key': key } });
      const body = await res.text();
      if (res.status !== expect) throw new Error(`${path}: HTTP ${res.status} ${body.slice(0, 300)}`);
      return { ms: performance.now() - t, cache: res.headers.get('x-aggregate-cache') };
    };
    const paths: [string, string][] = [
      ['list (default)', '/v1/trends'],
      ['list by article_count, state=hot', '/v1/trends?sort_by=article_count&state=hot'],
      [`detail, largest trend (${fmt(s.big.articles)} articles)`, `/v1/trends/${s.big.id}`],
      ['detail, median trend', `/v1/trends/${s.typical.id}`],
      ['articles, largest trend', `/v1/trends/${s.big.id}/articles`],
      ['themes', '/v1/themes'],
    ];
    const rollupPath = `/v1/trends/${s.big.id}/rollup?period=30d`;
    await call('/nope', 404);
    for (const [, p] of paths) await call(p, 200);
    await call(rollupPath, 200);
    const times = new Map<string, number[]>([
      ['bare', []],
      ['rollup cold', []],
      ['rollup warm', []],
      ...paths.map(([n]) => [n, []] as [string, number[]]),
    ]);
    for (let i = 0; i < runs; i++) {
      times.get('bare')!.push((await call('/nope', 404)).ms);
      for (const [n, p] of paths) times.get(n)!.push((await call(p, 200)).ms);
      if (i < Math.min(runs, 10)) {
        await services.clearCache('agg');
        const cold = await call(rollupPath, 200);
        if (cold.cache !== 'miss') throw new Error(`cold roll-up served from ${cold.cache}`);
        times.get('rollup cold')!.push(cold.ms);
      }
      const warm = await call(rollupPath, 200);
      if (warm.cache !== 'hit') throw new Error(`warm roll-up served from ${warm.cache}`);
      times.get('rollup warm')!.push(warm.ms);
    }
    const base = median(times.get('bare')!);
    const label = (n: string) =>
      n === 'bare'
        ? 'bare Worker route (JSON 404)'
        : n === 'rollup cold'
          ? `roll-up 30d, largest trend, cold (computed)`
          : n === 'rollup warm'
            ? 'roll-up 30d, largest trend, warm (Redis)'
            : n;
    return [...times].map(([n, t]) => [label(n), String(t.length), fmt(median(t), 1), fmt(p95(t), 1), fmtRatio(ratio(median(t), base))]);
  } finally {
    await services.close();
  }
}

export async function run(argv: string[]): Promise<void> {
  const scale = arg(argv, '--scale', 'bench');
  const runs = Number(arg(argv, '--runs', '25'));
  const httpRuns = Number(arg(argv, '--http', '30'));
  // Reuses the loaded set and applies this branch's migrations (0006_trends builds trend_days once).
  const { client } = await ensureRollupsData({ scale });
  const dbName = rollupsDb(scale);
  try {
    await client.query('ANALYZE trends, trend_days, trend_articles, trend_edges, hierarchy_nodes');
    const s = await samples(client);
    const {
      rows: [meta],
    } = await client.query<{ now: Date; markets: string[] }>(
      `SELECT (SELECT max(hour) FROM observations) + interval '30 minutes' AS now, (SELECT array_agg(DISTINCT country) FROM market_days) AS markets`,
    );
    const now = new Date(meta.now).toISOString();
    log(
      `data (${dbName}): ${Object.entries(s.counts)
        .map(([k, v]) => `${fmt(v)} ${k}`)
        .join(', ')}; now = ${now}`,
    );
    const dbResult = await databaseTimes(client, runs, s);
    console.log(
      `\ntrends, database time: the routes' query functions over one direct PostgreSQL 15 connection (${dbName}), ${runs} runs each, vs SELECT 1 (${fmt(dbResult.base, 2)} ms)\n`,
    );
    console.log(table(['query', 'median ms', 'p95 ms', 'vs SELECT 1'], dbResult.rows));
    if (httpRuns > 0) {
      const rows = await httpTimes(dbName, now, httpRuns, s, meta.markets);
      console.log(
        `\ntrends, end to end: workerd via Miniflare, gateway -> PostgreSQL 15 (${dbName}) + Redis 7, ${meta.markets.length} markets\n`,
      );
      console.log(table(['request', 'runs', 'median ms', 'p95 ms', 'vs bare'], rows));
    }
  } finally {
    await client.end();
  }
}
