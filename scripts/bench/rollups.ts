// `npm run bench -- rollups [--scale bench] [--lines N] [--runs 7] [--kinds entity,publisher] [--keys 1,50,200] [--windows 24h,7d,30d] [--raw-budget 60] [--jit off] [--distinct spans] [--reload]`
// Window reads over the roll-ups (shared/rollups/read.ts: seriesByKey at day grain + distinctByKey,
// called as the API calls them: drizzle neon-http through the local gateway) against the same
// answer computed from raw observations (rollups-raw.ts) through the same connection, on the bench
// set in `bench_rollups` (loaded once, then reused). The first pair is a warm-up whose answers are
// compared for equality; the next `--runs` alternate the two sides and are timed (each read alone).
import { createDb, type Db } from '../../shared/db/client';
import { queryRows } from '../../shared/db/raw';
import type { DimensionKind } from '../../shared/db/schema';
import {
  distinctByKey,
  distinctFromSpans,
  seriesByKey,
  type KeyedScope,
  type KeyDistinct,
  type KeySeries,
} from '../../shared/rollups/read';
import { resolveMarkets, scopeOf } from '../../shared/scope/scope';
import { startBenchServices } from '../lib/bench-harness';
import { BENCH_NOW } from './generate';
import { rawDistinct, rawSeries } from './rollups-raw';
import { ensureRollupsData, rollupsDb } from './rollups-load';
import { fmt, fmtRatio, log, median, ratio, table } from './stats';

const WINDOWS: Record<string, number> = { '24h': 24, '7d': 7 * 24, '30d': 30 * 24 };

const list = (argv: string[], name: string, fallback: string) => {
  const i = argv.indexOf(name);
  return (i >= 0 ? argv[i + 1] : fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
};

interface Answer {
  series: Map<string, KeySeries>;
  distinct: Map<string, KeyDistinct>;
}

interface Timed {
  answer: Answer;
  seriesMs: number;
  distinctMs: number;
}

/** The two reads one after the other, each timed on its own. */
async function timed(series: () => Promise<Map<string, KeySeries>>, distinct: () => Promise<Map<string, KeyDistinct>>): Promise<Timed> {
  const t0 = performance.now();
  const s = await series();
  const t1 = performance.now();
  const d = await distinct();
  const t2 = performance.now();
  return { answer: { series: s, distinct: d }, seriesMs: t1 - t0, distinctMs: t2 - t1 };
}

/** `--distinct spans` times the url_spans walk instead of the path distinctByKey picks (the hulls here). */
let distinctPath: 'auto' | 'spans' = 'auto';
const viaRollups = (db: Db, scope: KeyedScope, from: Date, to: Date) =>
  timed(
    () => seriesByKey(db, scope, from, to, 'day'),
    () => (distinctPath === 'spans' ? distinctFromSpans(db, scope, from, to) : distinctByKey(db, scope, from, to)),
  );
const viaRaw = (db: Db, scope: KeyedScope, from: Date, to: Date) =>
  timed(
    () => rawSeries(db, scope, from, to),
    () => rawDistinct(db, scope, from, to),
  );

/** Differences between two answers (empty when equal; position sums compared to 1e-6 relative). */
function differences(scope: KeyedScope, a: Answer, b: Answer): string[] {
  const out: string[] = [];
  const close = (x: number, y: number) => Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(x), Math.abs(y));
  for (const key of scope.keys) {
    const sa = a.series.get(key)!;
    const sb = b.series.get(key)!;
    if (sa.impressions.join() !== sb.impressions.join()) out.push(`${key}: impressions ${sa.impressions} vs ${sb.impressions}`);
    if (!sa.positionSum.every((v, i) => close(v, sb.positionSum[i]))) out.push(`${key}: position sums differ`);
    const da = a.distinct.get(key);
    const db = b.distinct.get(key);
    const show = (d?: KeyDistinct) => (d ? `${d.publications}/${d.publishers}/${d.trends}/${d.lastSeen?.toISOString()}` : 'none');
    if (show(da) !== show(db)) out.push(`${key}: distinct ${show(da)} vs ${show(db)}`);
  }
  return out;
}

/** The N keys of a kind with the most URLs (the heaviest ones to read), deterministic. */
async function topKeys(db: Db, kind: DimensionKind, n: number): Promise<string[]> {
  const rows = await queryRows<{ key: string }>(
    db,
    `SELECT key FROM url_dimensions WHERE kind = $1 GROUP BY key ORDER BY count(*) DESC, key LIMIT $2`,
    [kind, n],
  );
  return rows.map((r) => r.key);
}

export async function run(argv: string[]): Promise<void> {
  const runs = Number(list(argv, '--runs', '7')[0]);
  const kinds = list(argv, '--kinds', 'entity,publisher') as DimensionKind[];
  const keyCounts = list(argv, '--keys', '1,50,200').map(Number);
  const windows = list(argv, '--windows', '24h,7d,30d');
  const rawBudgetMs = Number(list(argv, '--raw-budget', '60')[0]) * 1000;
  distinctPath = list(argv, '--distinct', 'auto')[0] === 'spans' ? 'spans' : 'auto';

  const scale = list(argv, '--scale', 'bench')[0];
  const lines = argv.includes('--lines') ? Number(list(argv, '--lines', '0')[0]) : undefined;
  const ROLLUPS_DB = rollupsDb(scale, lines);
  const { client, info } = await ensureRollupsData({ reload: argv.includes('--reload'), scale, lines });
  const {
    rows: [sizes],
  } = await client.query<Record<string, string>>(`SELECT
    (SELECT count(*) FROM observations) AS observations, (SELECT count(*) FROM url_profiles) AS profiles,
    (SELECT count(*) FROM articles) AS articles, (SELECT count(*) FROM url_dimensions) AS url_dimensions,
    (SELECT count(*) FROM dim_hours) AS dim_hours, (SELECT count(*) FROM dim_days) AS dim_days,
    (SELECT count(*) FROM url_spans) AS url_spans, (SELECT count(*) FROM dim_activity) AS dim_activity,
    (SELECT count(*) FROM dim_activity_gaps) AS dim_activity_gaps, (SELECT count(*) FROM dim_activity_hours) AS dim_activity_hours,
    (SELECT min(hour)::text FROM observations) AS first_hour, (SELECT max(hour)::text FROM observations) AS last_hour,
    pg_size_pretty(pg_database_size(current_database())) AS size`);
  const { rows: markets } = await client.query<{ country: string }>('SELECT DISTINCT country FROM market_days ORDER BY 1');
  // --jit off: the database's sessions (the gateway's pool connects after this) plan without JIT,
  // which otherwise compiles any statement whose estimated cost passes jit_above_cost (default on).
  const jitOff = list(argv, '--jit', 'default')[0] === 'off';
  await client.query(jitOff ? `ALTER DATABASE ${ROLLUPS_DB} SET jit = off` : `ALTER DATABASE ${ROLLUPS_DB} RESET jit`);
  await client.end();
  log(`data: ${JSON.stringify(sizes)}`);

  const services = await startBenchServices({ database: ROLLUPS_DB });
  // No statement_timeout: the raw-observation side is the slow reference this bench measures.
  const db = createDb(services.bindings, 0);
  const to = new Date(BENCH_NOW);
  const countries = markets.map((m) => m.country);
  const keyScope = (await resolveMarkets(db, scopeOf({ projectId: null, allowedCountries: countries, categories: null }))).scope;

  const results: (string | number)[][] = [];
  let mismatches = 0;
  try {
    for (const kind of kinds) {
      const all = await topKeys(db, kind, Math.max(...keyCounts));
      for (const n of keyCounts) {
        const scope: KeyedScope = { kind, keys: all.slice(0, n), keyScope, language: null };
        for (const w of windows) {
          const from = new Date(to.getTime() - WINDOWS[w] * 3_600_000);
          const label = `${kind} x${n}, ${w}`;
          // Warm-up pair, compared for equality.
          const r0 = await viaRollups(db, scope, from, to);
          const x0 = await viaRaw(db, scope, from, to);
          const diff = differences(scope, r0.answer, x0.answer);
          if (diff.length) {
            mismatches++;
            log(`MISMATCH ${label}: ${diff.slice(0, 3).join('; ')}`);
          }
          const tr: Timed[] = [];
          const tx: Timed[] = [];
          let rawSpent = 0;
          for (let i = 0; i < runs; i++) {
            // Alternate which goes first so that drift does not favour one side. The raw side stops
            // after `--raw-budget` seconds in a case (at least 3 runs): its big cases take minutes.
            const rawDue = tx.length < 3 || rawSpent < rawBudgetMs;
            const pair = [
              async () => void tr.push(await viaRollups(db, scope, from, to)),
              async () => {
                if (rawDue) {
                  const t = await viaRaw(db, scope, from, to);
                  rawSpent += t.seriesMs + t.distinctMs;
                  tx.push(t);
                }
              },
            ];
            if (i % 2) pair.reverse();
            for (const f of pair) await f();
          }
          const med = (list: Timed[], f: (t: Timed) => number) => median(list.map(f));
          const rs = med(tr, (t) => t.seriesMs);
          const rd = med(tr, (t) => t.distinctMs);
          const rt = med(tr, (t) => t.seriesMs + t.distinctMs);
          const xs = med(tx, (t) => t.seriesMs);
          const xd = med(tx, (t) => t.distinctMs);
          const xt = med(tx, (t) => t.seriesMs + t.distinctMs);
          const pubs = [...r0.answer.distinct.values()].reduce((sum, d) => sum + d.publications, 0);
          results.push([
            kind,
            n,
            w,
            fmt(pubs),
            `${tr.length}/${tx.length}`,
            fmt(rs, 1),
            fmt(xs, 1),
            fmtRatio(ratio(xs, rs)),
            fmt(rd, 1),
            fmt(xd, 1),
            fmtRatio(ratio(xd, rd)),
            fmt(rt, 1),
            fmt(xt, 1),
            fmtRatio(ratio(xt, rt)),
            diff.length ? 'NO' : 'yes',
          ]);
          log(
            `${label}: series ${fmt(rs, 1)} vs ${fmt(xs, 1)} ms (${fmtRatio(ratio(xs, rs))}), distinct ${fmt(rd, 1)} vs ${fmt(xd, 1)} ms ` +
              `(${fmtRatio(ratio(xd, rd))}), both ${fmtRatio(ratio(xt, rt))}${diff.length ? ' (MISMATCH)' : ''}`,
          );
        }
      }
    }
  } finally {
    await services.close();
  }

  console.log(
    `\nrollups: ${ROLLUPS_DB} (${fmt(info.lines)} lines loaded in ${fmt(info.seconds)} s${info.fresh ? ' by this run' : ', reused'}): ` +
      `${Object.entries(sizes)
        .map(([k, v]) => `${k} ${/^\d+$/.test(v) ? fmt(Number(v)) : v}`)
        .join(', ')}`,
  );
  console.log(
    `JIT: ${jitOff ? 'off (ALTER DATABASE ... SET jit = off)' : 'server default (on)'}; windows end at ${BENCH_NOW}; all ${countries.length} countries, every language; medians (runs roll-ups/raw) after a ` +
      `warm-up pair whose answers are compared; series = seriesByKey at day grain, distinct = ${distinctPath === 'spans' ? 'distinctFromSpans (forced url_spans walk)' : 'distinctByKey (activity hulls for this scope)'}; ms per call over ` +
      `neon-http through the local gateway\n`,
  );
  console.log(
    table(
      [
        'kind',
        'keys',
        'window',
        'publications',
        'runs',
        'series roll-ups ms',
        'series raw ms',
        'series raw/roll-ups',
        'distinct roll-ups ms',
        'distinct raw ms',
        'distinct raw/roll-ups',
        'both roll-ups ms',
        'both raw ms',
        'both raw/roll-ups',
        'equal',
      ],
      results,
    ),
  );
  if (mismatches) throw new Error(`${mismatches} cases where roll-ups and raw observations disagree`);
}
