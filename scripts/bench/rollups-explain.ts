// `npm run bench -- rollups:explain [--scale bench] [--lines N] [--kind entity] [--keys 200] [--window 30d] [--raw] [--distinct spans]`
// EXPLAIN (ANALYZE, BUFFERS) of the exact statements the roll-up read path (and with --raw, the raw
// reference) sends for one case of the rollups benchmark: for investigating a slow case.
import type { Db } from '../../shared/db/client';
import type { DimensionKind } from '../../shared/db/schema';
import { distinctFromActivity } from '../../shared/rollups/activity-counts';
import { distinctFromSpans, seriesByKey, type KeyedScope } from '../../shared/rollups/read';
import { resolveMarkets, scopeOf } from '../../shared/scope/scope';
import { connectTo } from '../lib/bench-harness';
import { BENCH_NOW } from './generate';
import { rawDistinct, rawSeries } from './rollups-raw';
import { rollupsDb } from './rollups-load';

const HOURS: Record<string, number> = { '24h': 24, '7d': 168, '30d': 720 };

export async function run(argv: string[]): Promise<void> {
  const get = (name: string, fallback: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
  const lines = argv.includes('--lines') ? Number(get('--lines', '0')) : undefined;
  const client = await connectTo(rollupsDb(get('--scale', 'bench'), lines));
  const kind = get('--kind', 'entity') as DimensionKind;
  const n = Number(get('--keys', '200'));
  const { rows } = await client.query<{ key: string }>(
    `SELECT key FROM url_dimensions WHERE kind = $1 GROUP BY key ORDER BY count(*) DESC, key LIMIT $2`,
    [kind, n],
  );
  const { rows: markets } = await client.query<{ country: string }>('SELECT DISTINCT country FROM market_days ORDER BY 1');
  const to = new Date(BENCH_NOW);
  const from = new Date(to.getTime() - HOURS[get('--window', '30d')] * 3_600_000);
  // A Db whose raw queries are explained instead of run (the read functions tolerate no rows).
  const explaining = {
    $client: {
      async query(text: string, params: unknown[]) {
        const { rows: plan } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params);
        console.log(`\n${text.trim()}\n\n${plan.map((r) => r['QUERY PLAN']).join('\n')}`);
        return [];
      },
    },
  } as unknown as Db;
  // A listed key scope (resolveMarkets reads nothing for a key with markets).
  const keyScope = (
    await resolveMarkets(explaining, scopeOf({ projectId: null, allowedCountries: markets.map((m) => m.country), categories: null }))
  ).scope;
  const scope: KeyedScope = { kind, keys: rows.map((r) => r.key), keyScope, language: null };
  if (!argv.includes('--jit')) await client.query('SET jit = off');
  if (argv.includes('--raw')) {
    await rawSeries(explaining, scope, from, to);
    await rawDistinct(explaining, scope, from, to);
  } else {
    await seriesByKey(explaining, scope, from, to, 'day');
    // The scope covers every market (as in the benchmark): the activity hulls, or with
    // `--distinct spans` the url_spans walk.
    await (get('--distinct', 'hulls') === 'spans' ? distinctFromSpans : distinctFromActivity)(explaining, scope, from, to);
  }
  await client.end();
}
