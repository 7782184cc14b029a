// `npm run rollups:rebuild`: rebuilds the roll-ups of DATABASE_URL (or the embedded database).
import { rebuildRollups } from '../shared/ingest/rebuild';
import { connect } from './lib/connect';

const conn = await connect();
const client = await conn.pool.connect();
try {
  await rebuildRollups(client, (line) => console.log(line));
} finally {
  client.release();
  await conn.close();
}
