// `npm run drop -- file.ndjson[.gz] [--key NAME] [--json] [--no-wait] [--timeout 600]`: puts a file into
// `npm start`'s local bucket as the crawler puts one into R2 (functions/dev/drop.ts, which also sends
// the event notification R2 would), then follows the run in the ledger and prints how it ended.
// Exit code as the CLI's: 0 every line loaded, 1 some lines were bad (the others loaded), 2 the run
// failed (unreadable file), or it did not end within --timeout seconds.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { connect } from './lib/connect';
import { apiUrl, putDrop } from './lib/local-drop';

interface RunRow {
  run_id: string;
  state: string;
  read: number;
  loaded: number;
  skipped: number;
  reason: string | null;
  seconds: number | null;
  lag: number | null;
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      key: { type: 'string' },
      json: { type: 'boolean' },
      'no-wait': { type: 'boolean' },
      timeout: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const file = positionals[0];
  if (!file || values.help) {
    console.log('usage: npm run drop -- file.ndjson[.gz] [--key NAME] [--json] [--no-wait] [--timeout SECONDS]');
    return file || values.help ? 0 : 2;
  }
  const key = values.key ?? basename(file);
  const notification = await putDrop(await apiUrl(), key, readFileSync(file));
  if (!values.json) console.error(`dropped ${file} as ${key} (${notification.object.size} bytes, etag ${notification.object.eTag})`);
  if (values['no-wait']) return 0;

  const conn = await connect();
  try {
    const deadline = Date.now() + Number(values.timeout ?? 600) * 1000;
    for (;;) {
      const { rows } = await conn.pool.query<RunRow>(
        `SELECT id::text AS run_id, state, read, loaded, skipped, reason,
           extract(epoch FROM finished_at - started_at)::float8 AS seconds, extract(epoch FROM finished_at - event_time)::float8 AS lag
         FROM ingest_runs WHERE object_key = $1 AND etag = $2`,
        [key, notification.object.eTag],
      );
      const run = rows[0];
      if (run && (run.state === 'done' || run.state === 'failed')) {
        if (values.json) console.log(JSON.stringify({ ...run, object_key: key, etag: notification.object.eTag }));
        else if (run.state === 'failed') console.log(`run ${run.run_id} failed: ${run.reason}`);
        else {
          const bad = run.skipped ? `, ${run.skipped} bad line(s) (npm run admin -- ingest:errors ${run.run_id})` : '';
          console.log(
            `run ${run.run_id} done: read ${run.read} lines, loaded ${run.loaded}${bad} in ${run.seconds?.toFixed(1)} s (${run.lag?.toFixed(1)} s after the drop)`,
          );
        }
        return run.state === 'failed' ? 2 : run.skipped > 0 ? 1 : 0;
      }
      if (Date.now() > deadline) {
        console.error(
          `run of ${key} not over after ${values.timeout ?? 600} s (state ${run?.state ?? 'not registered'}): see npm run admin -- ingest:status`,
        );
        return 2;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await conn.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`drop: ${err.message}`);
    process.exit(2);
  },
);
