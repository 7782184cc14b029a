// `npm run bench -- ingest [--lines 300000] [--runs 3] [--batch-size N] [--no-ws] [--hours 3] [--active-days N]`
// (--batch-size: every variant's; by default each takes the product's, 5,000 lines or 20,000 in bulk mode)
// The product's ingest (shared/ingest over one pg.Client) on a fresh database, against a baseline
// of the same observations inserted row by row (one INSERT ... ON CONFLICT per row, one
// transaction) into a scratch table. Also: the same rows in batched unnest upserts (the statement
// shape the ingest uses, without any derived table), the ingest with roll-ups rebuilt at the end,
// the ingest through the local gateway's WebSocket relay (Neon's driver), as Workers reach the
// database, and hourly batches (scripts/bench/hourly.ts: one hour of observations for every
// active profile of the loaded slice, with late, corrected and repeated lines) with the roll-ups
// kept incrementally, then compared with a full rebuild. Variants rotate order per run.
import { Client as NeonClient } from '@neondatabase/serverless';
import type pg from 'pg';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batchLimits, ingest, ingestBatches, type IngestOptions } from '../../shared/ingest';
import type { Queryable } from '../../shared/db/queryable';
import { connectTo, dbUrl, freshDatabase, startBenchGateway } from '../lib/bench-harness';
import { configureDriver, gatewayInfo } from '../lib/connect';
import { BENCH_NOW, firstLines } from './generate';
import { activeProfiles, hourLines, type Profile } from './hourly';
import { rollupsDiffer } from './rollups-exact';
import { fmt, fmtRatio, log, median, ratio, table } from './stats';
import { copyFromClient } from '../lib/copy-from';
import { parseInThread } from '../lib/parse-thread';

interface Obs {
  url_id: string;
  country: string;
  language: string;
  hour: string;
  impressions: number;
  position: number;
}

const arg = (argv: string[], name: string, fallback: number) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};

/** One INSERT per row, as a naive loader would write it (a prepared statement, to be fair). */
async function rowByRow(client: pg.Client, rows: Obs[]): Promise<void> {
  await client.query('DROP TABLE IF EXISTS scratch_observations');
  await client.query('CREATE TABLE scratch_observations (LIKE observations INCLUDING ALL)');
  await client.query('BEGIN');
  for (const r of rows) {
    await client.query({
      name: 'scratch_upsert',
      text: `INSERT INTO scratch_observations (url_id, country, language, hour, impressions, position) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (url_id, country, language, hour) DO UPDATE SET impressions = excluded.impressions, position = excluded.position`,
      values: [r.url_id, r.country, r.language, r.hour, r.impressions, r.position],
    });
  }
  await client.query('COMMIT');
}

/** The same rows in statements of `size` rows (unnest arrays, as the ingest writes observations). */
async function batched(client: pg.Client, rows: Obs[], size: number): Promise<void> {
  await client.query('DROP TABLE IF EXISTS scratch_observations');
  await client.query('CREATE TABLE scratch_observations (LIKE observations INCLUDING ALL)');
  await client.query('BEGIN');
  for (let i = 0; i < rows.length; i += size) {
    const part = rows.slice(i, i + size);
    await client.query(
      `INSERT INTO scratch_observations (url_id, country, language, hour, impressions, position)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::int[], $6::real[])
       ON CONFLICT (url_id, country, language, hour) DO UPDATE SET impressions = excluded.impressions, position = excluded.position
       WHERE (scratch_observations.impressions, scratch_observations.position) IS DISTINCT FROM (excluded.impressions, excluded.position)`,
      [
        part.map((r) => r.url_id),
        part.map((r) => r.country),
        part.map((r) => r.language),
        part.map((r) => r.hour),
        part.map((r) => r.impressions),
        part.map((r) => r.position),
      ],
    );
  }
  await client.query('COMMIT');
}

/** The lines parsed here, or read from a file and parsed in a worker thread as `npm run ingest` does. */
async function productIngest(client: Queryable, lines: string[] | { file: string }, opts: IngestOptions): Promise<number> {
  const summary = Array.isArray(lines)
    ? await ingest(client, lines, opts)
    : await ingestBatches(client, parseInThread(lines, batchLimits(opts)).batches, opts);
  if (summary.skipped) throw new Error(`ingest skipped ${summary.skipped} lines: ${JSON.stringify(summary.errors.slice(0, 3))}`);
  return summary.byType.observation.inserted;
}

export async function run(argv: string[]): Promise<void> {
  const nLines = arg(argv, '--lines', 300_000);
  const runs = arg(argv, '--runs', 3);
  // Unset: each variant's default (the product's: 5,000 lines per batch incremental, 20,000 in bulk mode).
  const batchSize = argv.includes('--batch-size') ? arg(argv, '--batch-size', 0) : undefined;
  const withWs = !argv.includes('--no-ws');
  const hours = arg(argv, '--hours', 3);
  const activeDays = arg(argv, '--active-days', Number.POSITIVE_INFINITY);

  log(`generating the first ${fmt(nLines)} lines of the bench set (not timed)`);
  const lines = await firstLines('bench', nLines);
  const obs: Obs[] = [];
  const counts: Record<string, number> = {};
  for (const line of lines) {
    const r = JSON.parse(line) as { type: string } & Obs;
    counts[r.type] = (counts[r.type] ?? 0) + 1;
    if (r.type === 'observation') obs.push(r);
  }
  log(`lines: ${JSON.stringify(counts)}`);
  // The same lines as a file, for the variant that reads and parses them as `npm run ingest` does.
  const dir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
  const file = join(dir, 'lines.ndjson');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const unnestRows = batchSize ?? 5000;

  const gateway = withWs ? await startBenchGateway() : null;
  if (gateway) configureDriver(gatewayInfo(gateway, dbUrl('postgres')));

  type Variant = { name: string; go: () => Promise<number> };
  const variants: Variant[] = [
    {
      name: 'row-by-row INSERT ... ON CONFLICT (baseline)',
      go: async () => {
        const c = await freshDatabase('bench_ingest_rows');
        try {
          const t = performance.now();
          await rowByRow(c, obs);
          return performance.now() - t;
        } finally {
          await c.end();
        }
      },
    },
    {
      name: `observations only, ${unnestRows} rows per unnest upsert (no derived tables)`,
      go: async () => {
        const c = await freshDatabase('bench_ingest_rows');
        try {
          const t = performance.now();
          await batched(c, obs, unnestRows);
          return performance.now() - t;
        } finally {
          await c.end();
        }
      },
    },
    {
      name: 'ingest, pg.Client (roll-ups incremental, default)',
      go: async () => {
        const c = await freshDatabase('bench_ingest');
        try {
          const t = performance.now();
          await productIngest(c, lines, { batchSize });
          return performance.now() - t;
        } finally {
          await c.end();
        }
      },
    },
    {
      name: "ingest, pg.Client (rollups: 'rebuild-at-end')",
      go: async () => {
        const c = await freshDatabase('bench_ingest');
        try {
          const t = performance.now();
          await productIngest(c, lines, { batchSize, rollups: 'rebuild-at-end' });
          return performance.now() - t;
        } finally {
          await c.end();
        }
      },
    },
    {
      name: "ingest, pg.Client (rollups: 'rebuild-at-end', parsed in a worker thread, rebuilt on two connections: npm run ingest)",
      go: async () => {
        const c = await freshDatabase('bench_ingest');
        const lane = await connectTo('bench_ingest');
        try {
          const t = performance.now();
          await productIngest(c, { file }, { batchSize, rollups: 'rebuild-at-end', rebuildLane: lane, copyFrom: copyFromClient(c) });
          return performance.now() - t;
        } finally {
          await Promise.all([c.end(), lane.end()]);
        }
      },
    },
  ];
  if (gateway) {
    variants.push({
      name: 'ingest, Neon Client via gateway WebSocket relay',
      go: async () => {
        await (await freshDatabase('bench_ingest')).end();
        const c = new NeonClient(dbUrl('bench_ingest'));
        await c.connect();
        try {
          const t = performance.now();
          await productIngest(c as unknown as Queryable, lines, { batchSize });
          return performance.now() - t;
        } finally {
          await c.end();
        }
      },
    });
  }

  // Hourly batches: the slice is loaded once (not timed); each run then ingests the next `hours` hours
  // after the data's "now", one batch per hour, roll-ups incremental. The database is kept across runs.
  const HOURLY = 'hourly batches, pg.Client (roll-ups incremental, exact after each batch)';
  let hourly: { client: pg.Client; profiles: Profile[]; next: number } | null = null;
  const hourlyLines: number[] = [];
  if (hours > 0) {
    variants.push({
      name: HOURLY,
      go: async () => {
        if (!hourly) {
          const client = await freshDatabase('bench_ingest_hourly');
          await productIngest(client, lines, { batchSize, rollups: 'rebuild-at-end', now: new Date(BENCH_NOW) });
          const profiles = await activeProfiles(client, new Date(BENCH_NOW), activeDays);
          hourly = { client, profiles, next: Date.parse(BENCH_NOW) };
          log(`hourly: ${fmt(profiles.length)} active profiles`);
        }
        const batches = Array.from({ length: hours }, (_, k) => hourLines(hourly!.profiles, new Date(hourly!.next + k * 3_600_000)));
        let ms = 0;
        for (const [k, batch] of batches.entries()) {
          const now = new Date(hourly.next + (k + 1) * 3_600_000 + 60_000);
          const t = performance.now();
          const summary = await ingest(hourly.client, batch, { batchSize: Math.max(batchSize ?? 0, batch.length), now });
          ms += performance.now() - t;
          if (summary.skipped) throw new Error(`hourly ingest skipped ${summary.skipped} lines`);
        }
        hourly.next += hours * 3_600_000;
        hourlyLines.push(batches.reduce((n, b) => n + b.length, 0));
        return ms;
      },
    });
  }

  const times = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  for (let i = 0; i < runs; i++) {
    // Rotate the order so that drift on a noisy machine does not favour one variant.
    const order = variants.map((_, k) => variants[(k + i) % variants.length]);
    for (const v of order) {
      const ms = await v.go();
      times.get(v.name)!.push(ms);
      log(`run ${i + 1}/${runs}: ${v.name}: ${fmt(ms / 1000, 2)} s (${fmt(obs.length / (ms / 1000))} observations/s)`);
    }
  }
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
  let exact = '';
  if (hourly) {
    const h = hourly as { client: pg.Client };
    const differ = await rollupsDiffer(h.client);
    exact = differ.length ? `NOT exact: ${differ.join(', ')}` : 'every roll-up equals a full rebuild';
    log(`hourly batches: ${exact}`);
    await h.client.end();
  }

  const base = median(times.get(variants[0].name)!);
  const rows = variants.map((v) => {
    const m = median(times.get(v.name)!);
    if (v.name === HOURLY) {
      const perRun = median(hourlyLines);
      return [v.name, fmt(m / 1000, 2), fmt(perRun / (m / 1000)), fmt(perRun / (m / 1000)), fmtRatio(ratio(base / obs.length, m / perRun))];
    }
    return [v.name, fmt(m / 1000, 2), fmt(obs.length / (m / 1000)), fmt(lines.length / (m / 1000)), fmtRatio(ratio(base, m))];
  });
  console.log(
    `\ningest: first ${fmt(lines.length)} lines of --scale bench --seed 1 --now ${BENCH_NOW} ` +
      `(${fmt(obs.length)} observations, ${fmt(counts.article ?? 0)} articles), batch size ${batchSize ?? 'the product default'}, median of ${runs} runs\n`,
  );
  console.log(table(['variant', 'median s', 'observations/s', 'lines/s', 'speed vs baseline'], rows));
  if (hourly) {
    console.log(
      `\nhourly batches: ${hours} per run (${fmt(median(hourlyLines))} lines per run, ${fmt(median(hourlyLines) / hours)} per hour), ` +
        `active profiles: ${Number.isFinite(activeDays) ? `seen in the last ${activeDays} days` : 'every profile of the slice'}; ${exact}`,
    );
  }
}
