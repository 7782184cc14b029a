// `tsx scripts/ingest.ts [file.ndjson|-] [--batch-size N] [--rebuild-rollups | --incremental] [--json] [--verbose]`:
// loads NDJSON (stdin when no file or `-`) into the database that scripts/lib/connect resolves
// (DATABASE_URL, a running gateway, or the embedded one); a plain PostgreSQL DATABASE_URL is reached
// directly with node-postgres (a bulk loader gains nothing from the WebSocket relay, which would share
// the writer's core); lines are parsed in a worker thread (scripts/lib/parse-thread.ts). Roll-ups:
// --rebuild-rollups (bulk mode: rebuilt once at the end, nothing may read meanwhile), --incremental
// (kept exact per batch); by default bulk mode when the database holds no observations yet (a cold
// load), else incremental. --verbose prints each statement of the bulk rebuild on stderr as it ends,
// with its time and the seconds since the run started.
// Exit code 1 when any line was skipped, 2 on a fatal error.
import { statSync } from 'node:fs';
import pg from 'pg';
import type { Queryable } from '../shared/db/queryable';
import { batchLimits, ingestBatches, type CopyFrom, type IngestProgress, type IngestSummary } from '../shared/ingest';
import { connect, storeOf, type GatewayInfo } from './lib/connect';
import { announcer, FEED_TOPIC } from '../shared/streams/signal';
import { copyFromClient } from './lib/copy-from';
import { parseInThread } from './lib/parse-thread';
import { migrate } from './lib/migrations';
import { setSessionTimeout, STATEMENT_TIMEOUT_MS } from '../shared/db/timeout';

interface Args {
  file: string | null;
  batchSize?: number;
  json: boolean;
  verbose: boolean;
  rollups?: 'incremental' | 'rebuild-at-end';
}

function parseArgs(argv: string[]): Args {
  const args: Args = { file: null, json: false, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--json') args.json = true;
    else if (a === '--verbose') args.verbose = true;
    else if (a === '--batch-size') args.batchSize = Number(argv[++i]);
    else if (a === '--rebuild-rollups') args.rollups = 'rebuild-at-end';
    else if (a === '--incremental') args.rollups = 'incremental';
    else if (a === '-h' || a === '--help') {
      console.log('usage: tsx scripts/ingest.ts [file.ndjson|-] [--batch-size N] [--rebuild-rollups | --incremental] [--json] [--verbose]');
      process.exit(0);
    } else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else args.file = a === '-' ? null : a;
  }
  return args;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function progressBar(totalBytes: number | null, bytesRead: () => number) {
  if (!process.stderr.isTTY) return undefined;
  return (p: IngestProgress) => {
    const rate = p.seconds > 0 ? p.read / p.seconds : 0;
    let bar = '';
    if (totalBytes) {
      const f = Math.min(1, bytesRead() / totalBytes);
      bar = `[${'#'.repeat(Math.round(f * 30)).padEnd(30, '.')}] ${(f * 100).toFixed(0).padStart(3)}% `;
    }
    process.stderr.write(`\r${bar}${fmt(p.read)} lines, ${fmt(p.skipped)} skipped, ${fmt(rate)} lines/s   `);
  };
}

function printSummary(s: IngestSummary): void {
  const out: string[] = [];
  out.push(
    `read ${fmt(s.read)} lines: loaded ${fmt(s.loaded)}, skipped ${fmt(s.skipped)} in ${s.seconds.toFixed(1)} s ` +
      `(${fmt(s.seconds > 0 ? s.read / s.seconds : s.read)} lines/s)`,
  );
  const row = (cells: (string | number)[]) =>
    cells.map((c, i) => (i === 0 ? String(c).padEnd(20) : (typeof c === 'number' ? fmt(c) : c).padStart(11))).join('');
  out.push(row(['record type', 'loaded', 'inserted', 'updated', 'unchanged']));
  for (const [type, c] of Object.entries(s.byType)) {
    if (c.loaded > 0) out.push(row([type, c.loaded, c.inserted, c.updated, c.unchanged]));
  }
  const derived = Object.entries(s.derived).filter(([, d]) => d.inserted + d.updated + d.deleted > 0);
  if (derived.length) {
    out.push(row(['derived table', 'inserted', 'updated', 'deleted']));
    for (const [table, d] of derived) out.push(row([table, d.inserted, d.updated, d.deleted]));
  }
  out.push(`rows changed: ${fmt(s.changed)}${s.changed === 0 ? ' (already up to date)' : ''}`);
  if (s.errors.length) {
    out.push(`errors (${fmt(s.skipped)} lines skipped${s.skipped > s.errors.length ? `, first ${s.errors.length} shown` : ''}):`);
    for (const e of s.errors) out.push(`  line ${e.line}: ${e.reason}`);
  }
  console.log(out.join('\n'));
}

/**
 * One connection for the whole run: each batch is a BEGIN ... COMMIT on it. Where the database is
 * plain PostgreSQL, `another` opens a second one (the embedded one serves one connection at a time)
 * and `copyFrom` runs COPY on the first.
 */
async function open(): Promise<{
  client: Queryable;
  another?: () => Promise<pg.Client>;
  copyFrom?: CopyFrom;
  close(): Promise<void>;
  announce?: () => Promise<void>;
}> {
  const url = process.env.DATABASE_URL;
  if (url && /^postgres(ql)?:/.test(url) && !url.includes('.neon.tech')) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const another = async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    };
    return { client, another, copyFrom: copyFromClient(client), close: () => client.end(), announce: streamSignal(null) };
  }
  const conn = await connect();
  const client = await conn.pool.connect();
  return {
    client,
    announce: streamSignal(conn.info),
    async close() {
      client.release();
      await conn.close();
    },
  };
}

/** The push streams' change signal (shared/streams/signal.ts), where a Redis is known (npm start's gateway, UPSTASH_REDIS_REST_*). */
function streamSignal(info: GatewayInfo | null): (() => Promise<void>) | undefined {
  try {
    return announcer(storeOf(info, 'the stream signal'), FEED_TOPIC, (line) => console.error(line));
  } catch {
    return undefined;
  }
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const totalBytes = args.file ? statSync(args.file).size : null;

  const { client, another, copyFrom, close, announce } = await open();
  let lane: pg.Client | undefined;
  try {
    // Ingest's own statement_timeout (docs/SECURITY.md "Statement timeouts"), for the whole session.
    const timeout = Number(process.env.INGEST_STATEMENT_TIMEOUT_MS) || STATEMENT_TIMEOUT_MS.ingest;
    await setSessionTimeout(client, timeout);
    // A fresh or older database gets its schema first: the ingest writes every table of the current one.
    const applied = await migrate(client);
    if (applied.length) console.error(`schema: applied ${applied.length} migration(s) (${applied.at(-1)})`);
    const {
      rows: [{ empty }],
    } = await client.query<{ empty: boolean }>('SELECT NOT EXISTS (SELECT 1 FROM observations) AS empty');
    const rollups = args.rollups ?? (empty ? 'rebuild-at-end' : 'incremental');
    if (!args.json) console.error(`roll-ups: ${rollups === 'incremental' ? 'kept per batch' : 'rebuilt once at the end (bulk load)'}`);
    // The rebuild's second half runs on its own connection (docs/INGEST.md "Bulk loads").
    if (rollups === 'rebuild-at-end') lane = await another?.();
    if (lane) await setSessionTimeout(lane, timeout);
    // Lines are parsed in a worker thread (scripts/lib/parse-thread.ts): this thread writes.
    const limits = batchLimits({ batchSize: args.batchSize, rollups });
    const { batches, bytesRead } = parseInThread(args.file ? { file: args.file } : { stdin: true }, limits);
    const onProgress = progressBar(totalBytes, bytesRead);
    const started = Date.now();
    const onRebuildStep = args.verbose
      ? (line: string) => process.stderr.write(`${onProgress ? '\n' : ''}[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}\n`)
      : undefined;
    const summary = await ingestBatches(client, batches, {
      batchSize: args.batchSize,
      rollups,
      rebuildLane: lane,
      copyFrom,
      onProgress,
      onRebuildStep,
      announce,
    });
    if (onProgress) process.stderr.write('\n');
    if (args.json) console.log(JSON.stringify(summary, null, 2));
    else printSummary(summary);
    return summary.skipped > 0 ? 1 : 0;
  } finally {
    await lane?.end();
    await close();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`ingest failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(2);
  },
);
