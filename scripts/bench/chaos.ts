// `npm run bench -- chaos [--seconds 150] [--rate 25] [--dump outcomes.json]`: `npm start` on a throwaway PostgreSQL and
// redis-server (the harness' startThrowaway, scripts/lib/throwaway.ts; the live simulation off so answers hold
// still), keyed reads at a steady rate over lists, metrics, feed, trends, entities, articles and geo, while PostgreSQL is
// killed for a tenth of the run, then Redis, then both. Per phase: reads, answered (200/304), stale
// copies, 503s, other statuses, and wrong answers (a 200 whose body no healthy phase ever gave for
// that URL). The healthy phases are the baseline of the same run. Goal (docs/BENCHMARKS.md "Chaos"): >= 95% of reads
// answered while PostgreSQL is down, none wrong, no unexpected status.
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { startThrowaway, type ThrowawayStack } from '../lib/bench-harness';
import { fmt, log, table } from './stats';

interface Outcome {
  phase: string;
  path: string;
  status: number;
  stale: boolean;
  retryAfter: boolean;
  body: string;
  at: number;
}

function option(argv: string[], name: string, fallback: number): number {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
}

/** The reads: one path per keyed route shape (lists, metrics, feed, trends, entities, articles, geo), several parameter mixes each. */
async function readPaths(stack: ThrowawayStack, key: string): Promise<string[]> {
  const lists = (await (await fetch(`${stack.base}/v1/tracking/lists`, { headers: { 'X-API-Key': key } })).json()) as {
    lists: { id: string; kind: string }[];
  };
  const byKind = (kind: string) => lists.lists.find((l) => l.kind === kind)!.id;
  return [
    '/v1/tracking/lists',
    `/v1/tracking/lists/${byKind('publisher')}`,
    `/v1/tracking/lists/${byKind('publisher')}/metrics?period=7d`,
    `/v1/tracking/lists/${byKind('entity')}/metrics?period=24h`,
    `/v1/tracking/lists/${byKind('category')}/metrics?period=7d&grain=day`,
    '/v2/feed?period=24h&limit=10',
    '/v2/feed?sort_by=impressions_1h&limit=5',
    '/v2/live?since_minutes=1440&limit=5',
    '/v1/trends?limit=10',
    '/v1/trends?state=hot&limit=5',
    '/v1/themes',
    '/v1/entities?limit=10',
    '/v1/entities/trending?region=us&limit=10',
    '/v1/articles?limit=10',
    '/v1/geo/regions',
    '/v1/geo/regions/us',
    '/v1/geo/languages',
  ];
}

async function read(base: string, key: string, path: string, phase: string, t0: number): Promise<Outcome> {
  const at = Date.now() - t0;
  try {
    const res = await fetch(`${base}${path}`, { headers: { 'X-API-Key': key }, signal: AbortSignal.timeout(5_000) });
    const body = await res.text();
    return {
      phase,
      path,
      status: res.status,
      stale: /fwd=stale/.test(res.headers.get('cache-status') ?? ''),
      retryAfter: res.headers.has('retry-after'),
      body,
      at,
    };
  } catch {
    return { phase, path, status: 0, stale: false, retryAfter: false, body: '', at };
  }
}

export async function run(argv: string[]): Promise<void> {
  const seconds = option(argv, 'seconds', 150);
  const rate = option(argv, 'rate', 25);
  log(`chaos: starting npm start on a throwaway PostgreSQL and redis-server`);
  const stack = await startThrowaway('discovery-chaos', { LIVE: 'off' });
  try {
    const key = stack.key('full');
    // The demo project's plan allows 300 requests a minute; the run asks `rate` a second.
    const usage = (await (await fetch(`${stack.base}/v1/usage`, { headers: { 'X-API-Key': key } })).json()) as { project_id: string };
    execFileSync('npm', ['run', '--silent', 'admin', '--', 'project:set', usage.project_id, '--rate-limit', String(rate * 60 * 2)], {
      env: { ...process.env, ...stack.env },
      stdio: 'ignore',
    });
    const paths = await readPaths(stack, key);
    // Phases in tenths of the run: healthy, PostgreSQL down, healthy, Redis down, healthy, both down, healthy.
    const tenth = (seconds * 1000) / 10;
    const plan: [string, number, () => Promise<void> | void][] = [
      ['healthy', 0, () => undefined],
      ['postgres down', 2 * tenth, () => stack.stopPostgres()],
      ['healthy', 3 * tenth, () => stack.startPostgres()],
      ['redis down', 5 * tenth, () => stack.stopRedis()],
      ['healthy', 6 * tenth, () => stack.startRedis()],
      [
        'both down',
        8 * tenth,
        async () => {
          stack.stopPostgres();
          await stack.stopRedis();
        },
      ],
      [
        'healthy',
        9 * tenth,
        async () => {
          stack.startPostgres();
          await stack.startRedis();
        },
      ],
    ];
    const outcomes: Promise<Outcome>[] = [];
    const t0 = Date.now();
    let phase = 'healthy';
    let step = 0;
    let i = 0;
    const interval = 1000 / rate;
    while (Date.now() - t0 < seconds * 1000) {
      const elapsed = Date.now() - t0;
      while (step < plan.length && plan[step][1] <= elapsed) {
        const [name, , act] = plan[step++];
        await act();
        phase = name;
        log(`chaos: ${(elapsed / 1000).toFixed(1)} s: ${name}`);
      }
      outcomes.push(read(stack.base, key, paths[i++ % paths.length], phase, t0));
      const next = t0 + i * interval;
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
    const done = await Promise.all(outcomes);
    const restarts = plan
      .filter(([name], k) => name === 'healthy' && k > 0)
      .map(([, at], k) => ({ after: ['postgres', 'redis', 'both'][k], at }));
    const dump = argv.indexOf('--dump');
    if (dump >= 0) await writeFile(argv[dump + 1], JSON.stringify(done));
    report(done, stack.running(), restarts);
  } finally {
    await stack.close();
  }
}

/**
 * A page's content, for comparing answers computed at different moments: its cursor is signed anew
 * each time, and instants that follow the clock (a metrics window ending now, `to` and `prev_from`)
 * move by the second; everything on an hour boundary (the data) must be equal.
 */
const content = (body: string) =>
  body
    .replace(/"next_cursor":"[^"]*"/g, '"next_cursor":"..."')
    .replace(/"\d{4}-\d\d-\d\dT\d\d:(?!00:00)\d\d:\d\d(\.\d+)?(\+00:00|Z)"/g, '"<now>"');

/**
 * From each restart until every read that was answered stale (or not at all) during the outage is
 * answered fresh again: per path, the first fresh 200 sent after the restart; the slowest path counts.
 */
function recoveries(outcomes: Outcome[], restarts: { after: string; at: number }[]): string {
  return restarts
    .map(({ after, at }, k) => {
      const outage = outcomes.filter((o) => o.at < at && o.at >= (k === 0 ? 0 : restarts[k - 1].at) && o.phase !== 'healthy');
      const hurt = new Set(outage.filter((o) => o.stale || o.status !== 200).map((o) => o.path));
      if (hurt.size === 0) return `${after}: nothing to recover`;
      const waits = [...hurt].map((path) => outcomes.find((o) => o.path === path && o.at >= at && o.status === 200 && !o.stale));
      if (waits.some((o) => !o)) return `${after}: not within the run`;
      return `${after}: ${fmt(Math.max(...waits.map((o) => o!.at - at)) / 1000, 2)} s`;
    })
    .join(', ');
}

function report(outcomes: Outcome[], stillUp: boolean, restarts: { after: string; at: number }[]): void {
  const healthyBodies = new Map<string, Set<string>>();
  for (const o of outcomes) {
    if (o.phase === 'healthy' && o.status === 200)
      (healthyBodies.get(o.path) ?? healthyBodies.set(o.path, new Set()).get(o.path)!).add(content(o.body));
  }
  const wrong = (o: Outcome) => o.status === 200 && o.phase !== 'healthy' && !healthyBodies.get(o.path)?.has(content(o.body));
  const expected = (o: Outcome) => o.status === 200 || o.status === 304 || (o.status === 503 && o.retryAfter);
  const rows = ['healthy', 'postgres down', 'redis down', 'both down'].map((phase) => {
    const of = outcomes.filter((o) => o.phase === phase);
    const answered = of.filter((o) => o.status === 200 || o.status === 304).length;
    return [
      phase,
      of.length,
      answered,
      of.filter((o) => o.stale).length,
      of.filter((o) => o.status === 503).length,
      of.filter((o) => !expected(o)).length,
      of.filter(wrong).length,
      `${fmt((100 * answered) / Math.max(1, of.length), 1)}%`,
    ];
  });
  console.log(
    table(['phase', 'reads', 'answered 200/304', 'of them stale', '503 + Retry-After', 'unexpected status', 'wrong', 'answered'], rows),
  );
  const unanswered = outcomes.filter((o) => o.phase === 'postgres down' && o.status !== 200 && o.status !== 304);
  const wrongs = outcomes.filter(wrong);
  if (wrongs.length)
    console.log(`\nwrong: ${[...new Set(wrongs.map((o) => `${o.phase} ${o.path}: ${o.body.slice(0, 200)}`))].slice(0, 5).join('\n')}`);
  const odd = outcomes.filter((o) => !expected(o));
  if (odd.length)
    console.log(
      `\nunexpected: ${[...new Set(odd.map((o) => `${o.phase} ${o.path} ${o.status}: ${o.body.slice(0, 160)}`))].slice(0, 8).join('\n')}`,
    );
  if (unanswered.length)
    console.log(`\nnot answered while PostgreSQL was down: ${[...new Set(unanswered.map((o) => `${o.path} (${o.status})`))].join(', ')}`);
  console.log(`\nfirst fresh 200 after the restart of ${recoveries(outcomes, restarts)}`);
  console.log(`npm start still up after the run: ${stillUp ? 'yes' : 'NO'}`);
}
